/**
 * `npm pack` of a clean checkout after `npm ci` alone makes packages that work: each one's prepack
 * builds (scripts/build.sh), so the emulator's and the fleet's commands and the plugin's one-file
 * bundle are in their tarballs, and the plugin installed from its tarball serves. The clean checkout is this checkout's files as git sees them
 * (tracked, and new ones not ignored: no dist/), with the dependencies `npm ci` would install
 * (this checkout's node_modules, hard-linked, without what setup.sh adds to it).
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import type { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import { GetSchemaRequest, type GetSchemaResponse } from "@pulumi/pulumi/proto/provider_pb";
import { PLUGIN_BUNDLE, PLUGIN_ENTRY } from "../../provider/plugin/entry";
import { pluginClient, promised, startPlugin, stopPlugins } from "../support/pluginProcess";

const ROOT = path.resolve(__dirname, "../..");
let dir: string;

afterAll(() => {
  stopPlugins();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("a clean checkout packs the emulator and the fleet with their commands, and pulumi-mgmt with a plugin that runs", async () => {
  dir = mkdtempSync(path.join(tmpdir(), "mgmt-pack-fresh-"));
  const clone = path.join(dir, "clone");
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .split("\0")
    .filter((f) => f && existsSync(path.join(ROOT, f)));
  for (const f of files) cpSync(path.join(ROOT, f), path.join(clone, f), { recursive: true });
  expect(existsSync(path.join(clone, "dist"))).toBe(false);
  // What `npm ci` installs: links, not copies (nothing in the clone writes into them); copies
  // where the temporary folder is on another file system.
  const modules = path.join(clone, "node_modules");
  try {
    execFileSync("cp", ["-al", path.join(ROOT, "node_modules"), modules], { stdio: "ignore" });
  } catch {
    rmSync(modules, { recursive: true, force: true });
    execFileSync("cp", ["-a", path.join(ROOT, "node_modules"), modules]);
  }
  for (const added of ["node_modules/.cache", "node_modules/pulumi-mgmt"])
    rmSync(path.join(clone, added), { recursive: true, force: true });

  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("npm_")));
  // The emulator's and the fleet's packages first: each one's own prepack builds what it ships.
  const workspaces = JSON.parse(
    execFileSync("npm", ["pack", "-w", "emulator", "-w", "fleet", "--json", "--pack-destination", dir], {
      cwd: clone,
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    }),
  ) as { name: string; files: { path: string }[] }[];
  expect(workspaces.map((w) => [w.name, w.files.some((f) => f.path === "dist/cli.js")])).toEqual([
    ["pulumi-mgmt-emulator", true],
    ["pulumi-mgmt-fleet", true],
  ]);
  const tarball = execFileSync("npm", ["pack", "--silent", "--pack-destination", dir], {
    cwd: clone,
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  })
    .trim()
    .split("\n")
    .pop()!;
  const packed = execFileSync("tar", ["-tzf", path.join(dir, tarball)], { encoding: "utf8" }).split("\n");
  expect(packed).toContain(`package/dist/provider/plugin/${PLUGIN_BUNDLE}`);
  expect(packed).toContain(`package/dist/provider/plugin/${PLUGIN_ENTRY}`);

  // Installed into a fresh project: the package's own files from the tarball, its dependencies
  // from the clone's node_modules one folder up (where Node's resolution looks next).
  const installed = path.join(dir, "project/node_modules/pulumi-mgmt");
  mkdirSync(installed, { recursive: true });
  execFileSync("tar", ["-xzf", path.join(dir, tarball), "-C", installed, "--strip-components=1"]);
  symlinkSync(path.join(clone, "node_modules"), path.join(dir, "node_modules"));
  const { port } = await startPlugin(
    [],
    { ...env, PULUMI_MGMT_CACHE: path.join(dir, "cache") },
    path.join(installed, "dist/provider/plugin", PLUGIN_ENTRY),
  );
  const client = pluginClient(port);
  try {
    expect((await promised<PluginInfo>((cb) => client.getPluginInfo(new Empty(), cb))).getVersion()).toBe(
      require(path.join(ROOT, "package.json")).version,
    );
    const schema = JSON.parse(
      (await promised<GetSchemaResponse>((cb) => client.getSchema(new GetSchemaRequest(), cb))).getSchema(),
    );
    expect(Object.keys(schema.resources)).toContain("mgmt:index:SearchIndex");
  } finally {
    client.close();
  }
}, 600_000);
