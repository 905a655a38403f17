/**
 * The account's signing keys (contract "signing keys") through the vendor's own SDK
 * (@upstash/qstash) against the emulator: its requester reads and rotates the pair, its Receiver
 * verifies signatures made with the keys read, and the package's client agrees with both.
 */
import { createHash } from "node:crypto";
import { Client, Receiver, SignatureError } from "@upstash/qstash";
import { SignJWT } from "jose";
import { MgmtClient } from "../../provider/api/client";
import { ApiError } from "../../provider/api/errors";
import { startEmulator, type RunningEmulator } from "../../emulator";
import { clientFor } from "../support/harness";

let emu: RunningEmulator;
let alice: MgmtClient;

beforeAll(async () => {
  emu = await startEmulator();
  alice = clientFor({
    baseUrl: emu.baseUrl,
    messagingUrl: emu.messagingUrl,
    regionalMessagingUrl: emu.regionalMessagingUrl,
    username: emu.users[0].username,
    password: emu.users[0].password,
  });
});
afterAll(() => emu.close());
beforeEach(() => emu.emulator.reset());

const account = (region: string) => emu.users[0].accounts.find((a) => a.region === region)!;
const regionalUrl = (region: string) => emu.regionalMessagingUrl.replace("{region}", region);

/** The SDK's client of one account, at its region's address, with no retries of its own. */
const sdkFor = (region: string, token = account(region).token) =>
  new Client({ baseUrl: regionalUrl(region), token, retry: false, enableTelemetry: false, devMode: false });

interface Pair {
  current: string;
  next: string;
}
const readKeys = (sdk: Client) => sdk.http.request<Pair>({ path: ["v2", "keys"], method: "GET" });
const rotateKeys = (sdk: Client) => sdk.http.request<Pair>({ path: ["v2", "keys", "rotate"], method: "POST" });

/** A message signature as the service makes one: a JWT (HS256) of the destination and the body's hash. */
async function sign(key: string, url: string, body: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ body: createHash("sha256").update(body).digest("base64url") })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer("Upstash")
    .setSubject(url)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + 300)
    .setJti(`jwt_${now}`)
    .sign(new TextEncoder().encode(key));
}

const URL_ = "https://receiver.example.com/hook";
const BODY = '{"hello":"world"}';
const verifies = (pair: Pair, signature: string) =>
  new Receiver({ currentSigningKey: pair.current, nextSigningKey: pair.next }).verify({
    signature,
    body: BODY,
    url: URL_,
  });

test("the SDK reads the pair the package's client reads, and its Receiver verifies signatures made with either key", async () => {
  const sdk = sdkFor("eu-central-1");
  const pair = await readKeys(sdk);
  expect(pair).toEqual(await alice.signingKeys({ region: "eu-central-1", token: account("eu-central-1").token }).get());
  expect(pair.current).not.toBe(pair.next);
  // Each account has its own pair.
  expect(await readKeys(sdkFor("us-east-1"))).not.toEqual(pair);

  await expect(verifies(pair, await sign(pair.current, URL_, BODY))).resolves.toBe(true);
  await expect(verifies(pair, await sign(pair.next, URL_, BODY))).resolves.toBe(true);
  await expect(verifies(pair, await sign("sig_not_this_accounts", URL_, BODY))).rejects.toThrow(SignatureError);
});

test("a rotation through the SDK moves the pair one step: receivers holding both keys keep verifying, the old current stops", async () => {
  const sdk = sdkFor("us-east-1");
  const before = await readKeys(sdk);
  const after = await rotateKeys(sdk);
  expect(after.current).toBe(before.next);
  expect(after.next).not.toBe(before.next);
  expect(after.next).not.toBe(before.current);
  // What the SDK was answered is what the service holds now, and what the package's client reads.
  expect(await readKeys(sdk)).toEqual(after);
  const client = alice.signingKeys({ region: "us-east-1", token: account("us-east-1").token });
  expect(await client.get()).toEqual(after);

  // Signed with the new current (the old next): both the old receiver and the new one verify.
  const withNewCurrent = await sign(after.current, URL_, BODY);
  await expect(verifies(before, withNewCurrent)).resolves.toBe(true);
  await expect(verifies(after, withNewCurrent)).resolves.toBe(true);
  // Signed with the old current: the rotated pair refuses it.
  await expect(verifies(after, await sign(before.current, URL_, BODY))).rejects.toThrow(SignatureError);

  // The package's client rotates the same way, and answers the pair it made.
  const third = await client.rotate();
  expect(third.current).toBe(after.next);
  expect(await readKeys(sdk)).toEqual(third);
  await expect(verifies(third, await sign(third.next, URL_, BODY))).resolves.toBe(true);
});

test("a token is refused outside its account's region, and an unknown token everywhere", async () => {
  // The SDK prints each refused request; the refusals are what this test expects.
  jest.spyOn(console, "error").mockImplementation(() => undefined);
  const wrongRegion = sdkFor("eu-central-1", account("us-east-1").token);
  await expect(readKeys(wrongRegion)).rejects.toThrow(/user not found in this region/);
  await expect(rotateKeys(sdkFor("eu-central-1", "msg_not_a_token"))).rejects.toThrow(/unauthorized/);
  const refused = await alice
    .signingKeys({ region: "eu-central-1", token: "msg_not_a_token" })
    .get()
    .then(
      () => undefined,
      (err: unknown) => err,
    );
  expect(refused).toBeInstanceOf(ApiError);
  expect((refused as ApiError).status).toBe(401);
});

test("a rotation whose answer is lost is not sent again by the client (create class): the pair moved exactly one step", async () => {
  const token = account("eu-central-1").token;
  const client = alice.signingKeys({ region: "eu-central-1", token });
  const before = await client.get();
  emu.addFault({ method: "POST", path: "/v2/keys/rotate$", commitThenDrop: true });
  const lost = await client.rotate().then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(lost).toBeInstanceOf(ApiError);
  expect((lost as ApiError).isAmbiguous).toBe(true);
  expect(emu.requests().filter((r) => r.route.endsWith("/v2/keys/rotate"))).toHaveLength(1);
  expect((await client.get()).current).toBe(before.next);
});

test("reset puts the seeded pair back", async () => {
  const sdk = sdkFor("eu-central-1");
  const seeded = await readKeys(sdk);
  await rotateKeys(sdk);
  emu.emulator.reset();
  expect(await readKeys(sdk)).toEqual(seeded);
});
