/**
 * The plugin starts from V8's code cache of its bundle (provider/plugin/start.ts): the first start
 * writes it to the user's cache folder, later starts use it and leave it as it is, one that V8
 * rejects is replaced, and a cache that cannot be written costs nothing but the compile.
 */
import { createHash } from "node:crypto";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { codeCacheDir } from "../../provider/plugin/start";
import { pluginClient, promised, startPlugin, stopPlugins } from "../support/pluginProcess";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";

const root = mkdtempSync(path.join(tmpdir(), "mgmt-code-cache-"));
afterAll(() => {
  stopPlugins();
  rmSync(root, { recursive: true, force: true });
});

/** A cache as start.ts writes it: the SHA-256 of its payload, then the payload. */
const whole = (file: string) => {
  const data = readFileSync(file);
  return createHash("sha256").update(data.subarray(32)).digest().equals(data.subarray(0, 32));
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cacheFiles = (dir: string) => {
  try {
    return readdirSync(dir).map((f) => path.join(dir, f));
  } catch {
    return [];
  }
};
async function until(what: string, ok: () => boolean, ms = 15_000): Promise<void> {
  for (const end = Date.now() + ms; !ok(); await sleep(100))
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
}

/** Starts the plugin with its cache under `cache`, checks it serves, and leaves it running for `ms`. */
async function serveFor(cache: string, ms: number): Promise<void> {
  const { child, port } = await startPlugin([], { ...process.env, PULUMI_MGMT_CACHE: cache });
  const client = pluginClient(port);
  const info = await promised<{ getVersion(): string }>((cb) => client.getPluginInfo(new Empty(), cb));
  expect(info.getVersion()).toMatch(/^\d+\.\d+\.\d+/);
  client.close();
  await sleep(ms);
  child.kill();
}

test("the cache folder: PULUMI_MGMT_CACHE, else XDG_CACHE_HOME's pulumi-mgmt, else ~/.cache's", () => {
  expect(codeCacheDir({ PULUMI_MGMT_CACHE: "/c" })).toBe("/c/plugin-code");
  expect(codeCacheDir({ XDG_CACHE_HOME: "/x" })).toBe("/x/pulumi-mgmt/plugin-code");
  expect(codeCacheDir({ HOME: "/h" })).toBe("/h/.cache/pulumi-mgmt/plugin-code");
});

test("written once by the first start, used as it is by the next; one V8 rejects is replaced", async () => {
  const cache = path.join(root, "home-cache");
  const dir = codeCacheDir({ PULUMI_MGMT_CACHE: cache });
  await serveFor(cache, 0);
  await until("the code cache to be written", () => cacheFiles(dir).length === 1);
  const [file] = cacheFiles(dir);
  expect(statSync(file).size).toBeGreaterThan(100_000);
  expect(whole(file)).toBe(true);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  const written = statSync(file).mtimeMs;

  // Accepted: not written again (a start that compiles writes it before it serves).
  await serveFor(cache, 1000);
  expect([cacheFiles(dir), statSync(file).mtimeMs]).toEqual([[file], written]);

  // Not V8's (a disk error, another tool): the plugin serves, compiling, and writes a good one.
  writeFileSync(file, Buffer.alloc(4096, 7));
  await serveFor(cache, 0);
  await until("the rejected cache to be replaced", () => statSync(file).size > 100_000);
  expect(readFileSync(file).subarray(0, 64).equals(Buffer.alloc(64, 7))).toBe(false);

  // Torn or altered past V8's header (V8 checks little of the rest): its checksum fails, and it is replaced.
  const good = readFileSync(file);
  const altered = Buffer.from(good);
  altered[altered.length - 100] ^= 0xff;
  writeFileSync(file, altered);
  await serveFor(cache, 0);
  await until("the altered cache to be replaced", () => !readFileSync(file).equals(altered) && whole(file));

  // One that others may write is never loaded (it could be anyone's code): replaced by the user's own.
  chmodSync(file, 0o666);
  await serveFor(cache, 0);
  await until("the shared cache to be replaced", () => (statSync(file).mode & 0o777) === 0o600);
});

test("a cache folder that cannot be made costs nothing but the compile", async () => {
  const notAFolder = path.join(root, "a-file");
  writeFileSync(notAFolder, "");
  await serveFor(notAFolder, 1000);
  expect(readFileSync(notAFolder, "utf8")).toBe("");
});
