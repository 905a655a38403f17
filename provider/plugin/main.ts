#!/usr/bin/env node
/**
 * `pulumi-resource-mgmt`: the executable the engine starts as the `mgmt` provider plugin. Pulumi
 * passes the engine's address as the last argument (after flags of its own) and reads the port the plugin serves on from
 * its first line of stdout. The plugin exits when its engine is gone (engineWatch.ts: a run that
 * is over must not send a request still waiting out a backoff).
 */
import path from "node:path";
import { engineAddressOf, watchEngineAt } from "../engineWatch";
import { INSTALLED_AS_VAR, INSTALL_COMMAND, installPlugin } from "./install";
import { PLUGIN_VERSION } from "./schema";
import { serve } from "./server";
import { reportWaitsToEngine } from "../waitNotice";

const USAGE = `usage: pulumi-resource-mgmt [engine-address]
       pulumi-resource-mgmt install [--dir DIR]

The mgmt resource provider plugin: the Pulumi engine starts it (it serves Pulumi's provider gRPC
protocol on a loopback port and prints the port). \`install\` writes its launcher into Pulumi's
plugin folder ($PULUMI_HOME/plugins, ~/.pulumi/plugins by default), where every project on this
machine finds it, or into DIR (for a Pulumi.yaml \`plugins.providers\` path). See docs/plugin.md.
`;

const [command, ...rest] = process.argv.slice(2);
if (command === "--help" || command === "-h") {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (command === "install") {
  // The single executable of the release archive is installed by the engine, not by itself: its
  // launcher would name a node and a package this machine need not have.
  if (require("node:sea").isSea()) {
    process.stderr.write(
      `pulumi-resource-mgmt install: this is the plugin archive's executable: install the archive with \`pulumi plugin install resource mgmt ${PLUGIN_VERSION} --file <archive>\` (docs/plugin.md)\n`,
    );
    process.exit(2);
  }
  const dirFlag = rest.indexOf("--dir");
  if ((dirFlag >= 0 && !rest[dirFlag + 1]) || rest.length !== (dirFlag >= 0 ? 2 : 0)) {
    process.stderr.write(`pulumi-resource-mgmt install: unexpected arguments "${rest.join(" ")}"\n${USAGE}`);
    process.exit(2);
  }
  const file = installPlugin(dirFlag >= 0 ? rest[dirFlag + 1] : undefined);
  process.stdout.write(`installed the mgmt plugin: ${file}\n`);
  process.exit(0);
}
// A launcher written for another version: its package was upgraded (or downgraded) in place since.
const installedAs = process.env[INSTALLED_AS_VAR];
if (installedAs && installedAs !== PLUGIN_VERSION) {
  const pkg = path.resolve(__dirname, "../../..");
  process.stderr.write(
    `mgmt plugin: installed for pulumi-mgmt ${installedAs}, but ${pkg} now has ${PLUGIN_VERSION}: run \`${INSTALL_COMMAND}\` there for ${PLUGIN_VERSION}, or in a project that has ${installedAs} for programs that ask for that version\n`,
  );
  process.exit(1);
}
// The engine's address comes last, after any flags of the CLI's own (`--tracing <endpoint>`).
const engine = engineAddressOf(process.argv.slice(2));
if (engine) {
  watchEngineAt(engine);
  reportWaitsToEngine(engine); // on the resource's line while a request is retried
}
serve(engine).then(
  ({ port }) => process.stdout.write(`${port}\n`),
  (err: unknown) => {
    process.stderr.write(`mgmt plugin: cannot serve: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
