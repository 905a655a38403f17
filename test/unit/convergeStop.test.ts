/**
 * A tenant's run stopped while it writes its new stack into a database that does not answer
 * (fleet/diyBackend.ts) ends there, cancelled: it never goes on to start a Pulumi CLI, which would
 * not hear of a stop given before it started (converge.ts), and wait on that database too.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { converge } from "../../fleet/converge";

let server: Server;
const sockets: Socket[] = [];
const workRoot = mkdtempSync(path.join(tmpdir(), "mgmt-converge-stop-"));
beforeAll(async () => {
  // Accepts connections and never says a word: a database gone silent.
  server = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
});
afterAll(() => {
  for (const s of sockets) s.destroy();
  server.close();
  rmSync(workRoot, { recursive: true, force: true });
});

test("a run stopped while writing its new stack into a silent database is cancelled there, with no CLI started", async () => {
  const port = (server.address() as { port: number }).port;
  const stop = new AbortController();
  const lines: string[] = [];
  setTimeout(() => stop.abort(), 300);
  const result = await converge(
    { id: "acme", plan: "free", searchRegion: "eu-west-1", messagingRegion: "eu-central-1", flowControlKey: "acme" },
    {
      backendUrl: `postgres://fleet@127.0.0.1:${port}/pulumi`,
      workRoot,
      mgmt: {},
      retries: 0,
      action: "converge",
      recover: false,
      signal: stop.signal,
      passphrase: "test-only-passphrase",
    },
    (line) => lines.push(line),
  );
  expect(result).toMatchObject({ status: "cancelled", attempts: 1 });
  expect(sockets.length).toBe(1); // the one connection of the write, and nothing after it
  expect(lines).toEqual([]); // a stop is no failure of the write
}, 10_000);
