/**
 * `pulumi-resource-mgmt install`: the launcher it writes where the engine looks (the plugin folder
 * for this version, or a `plugins.providers` folder) starts the built plugin, and a launcher whose
 * package is gone, or now of another version, fails in one line that says how to install again.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { INSTALL_COMMAND, installPlugin, launcher, pluginCacheDir } from "../../provider/plugin/install";
import { PLUGIN_VERSION } from "../../provider/plugin/schema";
import { PLUGIN_MAIN, track, stopPlugins } from "../support/pluginProcess";

const home = mkdtempSync(path.join(tmpdir(), "mgmt-plugin-home-"));
afterAll(() => {
  stopPlugins();
  rmSync(home, { recursive: true, force: true });
});

test("install writes the launcher into $PULUMI_HOME/plugins/resource-mgmt-v<version>, and it serves", async () => {
  const out = execFileSync(process.execPath, [PLUGIN_MAIN, "install"], { env: { ...process.env, PULUMI_HOME: home } });
  const file = path.join(pluginCacheDir({ PULUMI_HOME: home }), "pulumi-resource-mgmt");
  expect(String(out)).toBe(`installed the mgmt plugin: ${file}\n`);
  expect(path.relative(home, file)).toBe(path.join("plugins", "resource-mgmt-v0.1.0", "pulumi-resource-mgmt"));
  const child = track(spawn(file, [], { stdio: ["ignore", "pipe", "inherit"] }));
  const port = await new Promise<number>((resolve) => child.stdout!.once("data", (c: Buffer) => resolve(Number(c))));
  expect(port).toBeGreaterThan(0);
});

test("a launcher whose plugin is gone fails in one line naming the install command", () => {
  const dir = path.join(home, "project-plugins");
  const file = installPlugin(dir, path.join(home, "moved", "main.js"));
  expect(existsSync(file)).toBe(true);
  const run = spawnSync(file, [], { encoding: "utf8" });
  expect(run.status).toBe(1);
  expect(run.stderr.trim().split("\n")).toEqual([expect.stringContaining(`run \`${INSTALL_COMMAND}\``)]);
});

test("a launcher written for another version of the package it runs fails in one line naming both versions and the install command", () => {
  const dir = path.join(home, "plugins", "resource-mgmt-v0.0.9");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "pulumi-resource-mgmt");
  writeFileSync(file, launcher(PLUGIN_MAIN, process.execPath, "0.0.9"));
  chmodSync(file, 0o755);
  const run = spawnSync(file, [], { encoding: "utf8", timeout: 20_000 });
  expect({ status: run.status, stdout: run.stdout }).toEqual({ status: 1, stdout: "" });
  expect(run.stderr.trim().split("\n")).toEqual([
    expect.stringMatching(
      new RegExp(
        `^mgmt plugin: installed for pulumi-mgmt 0\\.0\\.9, but \\S+ now has ${PLUGIN_VERSION.replace(/\./g, "\\.")}: run \`${INSTALL_COMMAND}\``,
      ),
    ),
  ]);
});

test("install with unexpected arguments exits 2 with the usage", () => {
  const run = spawnSync(process.execPath, [PLUGIN_MAIN, "install", "--bogus"], { encoding: "utf8" });
  expect(run.status).toBe(2);
  expect(run.stderr).toMatch(/^pulumi-resource-mgmt install: unexpected arguments "--bogus"\n/);
});
