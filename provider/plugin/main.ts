#!/usr/bin/env node
/**
 * `pulumi-resource-mgmt`: the executable the engine starts as the `mgmt` provider plugin. Pulumi
 * passes the engine's address as the first argument and reads the port the plugin serves on from
 * its first line of stdout. The plugin exits when its engine is gone (engineWatch.ts: a run that
 * is over must not send a request still waiting out a backoff).
 */
import { watchEngineAt } from "../engineWatch";
import { serve } from "./server";

const USAGE = `usage: pulumi-resource-mgmt [engine-address]

The mgmt resource provider plugin: the Pulumi engine starts it (it serves Pulumi's provider gRPC
protocol on a loopback port and prints the port). What it serves so far: docs/plugin.md.
`;

const engine = process.argv[2];
if (engine === "--help" || engine === "-h") {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (engine) watchEngineAt(engine);
serve().then(
  ({ port }) => process.stdout.write(`${port}\n`),
  (err: unknown) => {
    process.stderr.write(`mgmt plugin: cannot serve: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
