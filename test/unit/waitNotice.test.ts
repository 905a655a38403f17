/**
 * provider/waitNotice.ts: each retry the request layer decides on is reported, with what it
 * waits for and how long, to the process's sink (the engine's status line in a provider process),
 * on the resource whose call made the request; the report names the request and the failure, never
 * a header; a sink that fails never fails the request. The engine's display of it is shown end to
 * end in test/e2e/promises.test.ts (both front doors) and searchIndex.test.ts.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { closeAllPools, send } from "../../provider/api/http";
import { MESSAGE_GAP_MS, forResource, reportRetryWait, setWaitSink, waitMessage } from "../../provider/waitNotice";

let server: Server;
let origin: string;
let answers: number[] = [];
beforeAll(async () => {
  server = createServer((_req, res) => {
    res.statusCode = answers.shift() ?? 200;
    res.end("{}");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await closeAllPools();
  await new Promise((r) => server.close(r));
});
afterEach(() => setWaitSink(undefined));

const SECRET = "Bearer very-secret-token-1234";
const get = (path: string) =>
  send(
    {
      origin,
      path,
      label: `GET ${path.split("?")[0]}`,
      method: "GET",
      headers: { authorization: SECRET },
      retry: "idempotent",
      timeoutMs: 2_000,
      totalTimeoutMs: 20_000,
    },
    { connectTimeoutMs: 2_000, maxRetries: 5 },
  );

test("a retry is reported on the resource whose call sent the request, with the failure and the wait, never a header", async () => {
  const seen: [string, string | undefined][] = [];
  setWaitSink((message, urn) => seen.push([message, urn]));
  const [a, b] = ["urn:pulumi:dev::p::mgmt:index:SearchIndex::a", "urn:pulumi:dev::p::mgmt:index:SearchIndex::b"];
  // A's call opens the pooled keep-alive connection; B's request goes over it and is retried:
  // undici's callbacks then run in A's async context, and the report must still name B.
  answers = [200];
  await forResource(a, () => get("/v2/search"));
  answers = [503, 200];
  const answer = await forResource(b, async () => {
    await new Promise((r) => setImmediate(r)); // the resource's call goes on across awaits
    return get("/v2/search?name=docs");
  });
  expect(answer.status).toBe(200);
  expect(seen).toEqual([
    [expect.stringMatching(/^GET \/v2\/search: answered 503; trying again in \d+\.\d s \(retry 1 of 5\)$/), b],
  ]);
  expect(JSON.stringify(seen)).not.toMatch(/very-secret|name=docs/);
});

test("a rate limit's retries have their own bound; a line gets at most one message a second, other lines theirs", async () => {
  const seen: [string, string | undefined][] = [];
  setWaitSink((message, urn) => seen.push([message, urn]));
  answers = [429, 503, 200];
  await forResource("urn:x", () => get("/v2/search"));
  // The 503 came within the second of the 429's message on the same line.
  expect(seen).toEqual([
    [expect.stringMatching(/^GET \/v2\/search: rate limited \(429\); .* \(retry 1 of 60\)$/), "urn:x"],
  ]);
  const w = { request: "GET /v2/search", reason: "answered 503", retry: 1, of: 5, delayMs: 100 };
  setWaitSink((message, urn) => seen.push([message, urn]));
  seen.length = 0;
  reportRetryWait({ ...w, urn: "urn:a" }, 10_000);
  reportRetryWait({ ...w, urn: "urn:a", retry: 2 }, 10_000 + MESSAGE_GAP_MS - 1);
  reportRetryWait({ ...w, urn: "urn:b" }, 10_001);
  reportRetryWait({ ...w, urn: "urn:a", retry: 3 }, 10_000 + MESSAGE_GAP_MS);
  expect(seen.map(([m, urn]) => `${urn} ${/retry \d/.exec(m)![0]}`)).toEqual([
    "urn:a retry 1",
    "urn:b retry 1",
    "urn:a retry 3",
  ]);
});

test("a request answered at once reports nothing; one outside any resource's call reports without a URN", async () => {
  const seen: [string, string | undefined][] = [];
  setWaitSink((message, urn) => seen.push([message, urn]));
  answers = [];
  await get("/v2/search");
  expect(seen).toEqual([]);
  answers = [502];
  await get("/v2/search");
  expect(seen).toEqual([[expect.stringMatching(/^GET \/v2\/search: answered 502;/), undefined]]);
});

test("a sink that throws, or none at all, never fails the request", async () => {
  setWaitSink(() => {
    throw new Error("engine gone");
  });
  answers = [503];
  expect((await get("/v2/search")).status).toBe(200);
  setWaitSink(undefined);
  answers = [503];
  expect((await get("/v2/search")).status).toBe(200);
  expect(() =>
    reportRetryWait({ request: "GET /", reason: "answered 503", retry: 1, of: 5, delayMs: 100 }),
  ).not.toThrow();
});

test("the message", () => {
  expect(
    waitMessage({ request: "POST /v2/search", reason: "no answer (ECONNREFUSED)", retry: 3, of: 5, delayMs: 1234 }),
  ).toBe("POST /v2/search: no answer (ECONNREFUSED); trying again in 1.2 s (retry 3 of 5)");
});
