/**
 * Issue 37 item 3, through the real CLI: `pulumi package get-schema` starts the installed
 * package's plugin (`pulumi-resource-mgmt`, offline: no plugin download, a fresh PULUMI_HOME) and
 * prints the schema generated from the zod schemas. Starts the CLI: run it under the engine lock.
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { pulumiCliDir } from "../../provider/automation";
import { packageSchema } from "../../provider/plugin/schema";

// What the installed package's `bin` entry names, as npm would link it.
const INSTALLED = path.resolve(__dirname, "../../node_modules/pulumi-mgmt");
const INSTALLED_MAIN = path.join(
  INSTALLED,
  (JSON.parse(readFileSync(path.join(INSTALLED, "package.json"), "utf8")) as { bin: Record<string, string> }).bin[
    "pulumi-resource-mgmt"
  ],
);

test("pulumi package get-schema prints the plugin's schema, generated from the zod schemas", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "mgmt-plugin-"));
  try {
    // The engine finds a plugin by its file name: the npm `bin` entry would be linked under this name.
    const plugin = path.join(dir, "pulumi-resource-mgmt");
    writeFileSync(plugin, `#!/bin/sh\nexec "${process.execPath}" "${INSTALLED_MAIN}" "$@"\n`);
    chmodSync(plugin, 0o755);
    mkdirSync(path.join(dir, "home"));
    const env = {
      PATH: process.env.PATH,
      HOME: dir,
      PULUMI_HOME: path.join(dir, "home"),
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    };
    const { stdout } = await promisify(execFile)(
      path.join(pulumiCliDir(), "pulumi"),
      ["package", "get-schema", plugin],
      { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 },
    );
    expect(JSON.parse(stdout)).toEqual(packageSchema());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
