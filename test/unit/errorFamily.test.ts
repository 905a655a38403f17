/**
 * One error family (issue 36, item 2): every error pulumi-mgmt throws is a MgmtError (a UserError
 * for what a user can act on, an InternalError for a bug, an ApiError for the service's answer),
 * not-found is told by one predicate (`isNotFound`) and read around by one helper (`ifFound`),
 * and provider/ and fleet/ carry no `throw new Error(` and no cast through `unknown` or `never`.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { MgmtClient } from "../../provider/api/client";
import { ApiError, apiError, ifFound, isNotFound, NotFoundError } from "../../provider/api/errors";
import { resolveSettings } from "../../provider/config";
import { InternalError, MgmtError, PartialFailure, UserError } from "../../provider/userError";
import { failedPartway } from "../../provider/resources/partial";
import { startEmulator, type RunningEmulator } from "../../emulator";

const ROOT = path.join(__dirname, "..", "..", "provider");
/** The fleet (its own package, fleet/) throws the same family. */
const FLEET = path.join(__dirname, "..", "..", "fleet");

function sources(dir?: string): string[] {
  if (dir === undefined) return [ROOT, FLEET].flatMap((d) => sources(d));
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    // fleet/dist: the compiled copy setup.sh stages for the package.
    if (e.isDirectory()) return e.name === "dist" || e.name === "node_modules" ? [] : sources(file);
    return e.name.endsWith(".ts") ? [file] : [];
  });
}

/** `file:line: text` of every line of provider/ and fleet/ that matches. */
function linesMatching(pattern: RegExp): string[] {
  return sources().flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, i) => (pattern.test(line) ? [`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe("the source of provider/", () => {
  test("throws no plain Error: every error is of the family", () => {
    expect(linesMatching(/\bnew Error\(/)).toEqual([]);
    expect(
      linesMatching(/\bextends (Error|pulumi\.RunError|RunError)\b/).filter((l) => !l.startsWith("userError.ts:")),
    ).toEqual([]);
  });

  test("casts nothing through unknown or never", () => {
    expect(linesMatching(/\bas unknown as\b|\bas never\b/)).toEqual([]);
  });

  test("writes Pulumi's wire sentinels in one place only (wireSentinels.ts, checked against the SDK's)", () => {
    expect(
      linesMatching(
        /04da6b54-80e4-46f7-96ec-b56ff0331ba9|4dabf18193072939515e22adb298388d|1b47061264138c4ac30d75fd1eb44270/,
      ).filter((l) => !l.startsWith("wireSentinels.ts:")),
    ).toEqual([]);
  });

  test("tells not-found one way: isNotFound, never instanceof NotFoundError or .isNotFound elsewhere", () => {
    const others = linesMatching(
      /instanceof NotFoundError|\.isNotFound\b|goneIfNotFound|confirmGone|queueNotFound|keyNotFound|\bnotFound\b/,
    );
    expect(others.filter((l) => !l.startsWith(`api${path.sep}errors.ts:`))).toEqual([]);
  });

  test('parses an "OK" body strictly', () => {
    expect(linesMatching(/OkBody\.or\(/)).toEqual([]);
  });
});

describe("every error class declared in provider/", () => {
  const declared = sources().flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/^(export )?class (\w+) extends (\w[\w.]*)/gm)]
      .filter((m) => /Error$|^NoAnswer$/.test(m[2]) || /Error$/.test(m[3]))
      .map((m) => ({ file, name: m[2], exported: m[1] !== undefined })),
  );

  test("the scan finds them (the family's own classes among them)", () => {
    const names = declared.map((d) => d.name);
    for (const name of [
      "MgmtError",
      "UserError",
      "InternalError",
      "ApiError",
      "NotFoundError",
      "ConfigError",
      "IdentityMismatchError",
      "FenceBusyError",
      "UsageError",
      "SecretsProviderError",
      "NoAnswer",
    ]) {
      expect(names).toContain(name);
    }
  });

  test.each(declared.map((d) => [d.name, d] as const))("%s is exported and a MgmtError", async (_name, d) => {
    expect(d.exported).toBe(true);
    const mod: Record<string, unknown> = await import(d.file);
    const cls = mod[d.name];
    expect(typeof cls).toBe("function");
    const proto: unknown = (cls as { prototype: unknown }).prototype;
    expect(proto === MgmtError.prototype || proto instanceof MgmtError).toBe(true);
  });
});

describe("the family", () => {
  test("a user's error is printed by Pulumi as its message alone, with no stack; a bug keeps its stack", () => {
    const user = new UserError("region: must be one of eu-central-1, us-east-1");
    expect(pulumi.RunError.isInstance(user)).toBe(true);
    expect(user.stack).toBe("");
    const bug = new InternalError("route /v2/x/:id needs parameter id");
    expect(bug).toBeInstanceOf(MgmtError);
    expect(bug).not.toBeInstanceOf(UserError);
    expect(bug.message).toMatch(/^pulumi-mgmt internal error \(a bug: please report it\): route/);
    expect(bug.stack).toContain("errorFamily.test");
  });

  test("a failure partway carries what the dynamic provider host packs as created-but-failed-to-initialise: id, outputs as JSON with __provider, the one line", () => {
    const cause = apiError("POST", "/v2/search/i-1/setplan", "management", 400, "injected fault").about(
      'search index "docs"',
    );
    const news = { name: "docs", __provider: "require('pulumi-mgmt/internal/providers/searchIndex')" };
    const partial = failedPartway(cause, "i-1", { name: "docs", type: "free", endpoint: undefined }, news);
    expect(partial).toBeInstanceOf(PartialFailure);
    expect(partial).toBeInstanceOf(UserError);
    expect(partial.stack).toBe("");
    expect(partial.id).toBe("i-1");
    // The host's Struct takes no undefined; the host finds the code for a later refresh or destroy in __provider.
    expect(partial.properties).toEqual({ name: "docs", type: "free", __provider: news.__provider });
    expect(partial.message).toBe(
      `${cause.message} (what was done is kept in the stack; the next \`pulumi up\` does the rest)`,
    );
    expect(partial.reasons).toEqual([partial.message]);
    // Through the plugin no __provider arrives; one failure is not wrapped twice.
    expect(failedPartway(cause, "i-1", { name: "docs" }, { name: "docs" }).properties).toEqual({ name: "docs" });
    expect(failedPartway(partial, "i-2", {}, news)).toBe(partial);
  });
});

describe("not found", () => {
  test("isNotFound agrees with the status for every kind, and survives about()", () => {
    for (const status of [undefined, 400, 401, 404, 409, 429, 500, 503]) {
      const err = apiError("GET", "/v2/x", "management", status, "no");
      expect(isNotFound(err)).toBe(status === 404);
      expect(isNotFound(err.about('search index "a"'))).toBe(status === 404);
      expect(err).toBeInstanceOf(ApiError);
    }
    expect(isNotFound(new UserError("not found"))).toBe(false);
    expect(isNotFound(undefined)).toBe(false);
  });

  test("ifFound: the value, undefined on a 404, any other failure rethrown", async () => {
    await expect(ifFound(Promise.resolve(3))).resolves.toBe(3);
    await expect(ifFound(Promise.reject(apiError("GET", "/v2/x", "management", 404)))).resolves.toBeUndefined();
    const refused = apiError("GET", "/v2/x", "management", 401);
    await expect(ifFound(Promise.reject(refused))).rejects.toBe(refused);
  });

  describe("through the client, for every read of one object", () => {
    let emu: RunningEmulator;
    let client: MgmtClient;
    beforeAll(async () => {
      emu = await startEmulator();
      const user = emu.users[0];
      const settings: Record<string, string> = {
        "mgmt:baseUrl": emu.baseUrl,
        "mgmt:messagingUrl": emu.messagingUrl,
        "mgmt:regionalMessagingUrl": emu.regionalMessagingUrl,
        "mgmt:username": user.username,
        "mgmt:password": user.password,
        "mgmt:messagingToken": user.accounts.find((a) => a.region === "eu-central-1")!.token,
      };
      client = new MgmtClient(resolveSettings((key) => settings[key], {}));
    });
    afterAll(() => emu.close());

    const reads: [string, () => Promise<unknown>][] = [
      ["a search index", () => client.searchIndexes.get("no-such-index")],
      ["a messaging account", () => client.messagingAccounts.get("no-such-account")],
      ["a database", () => client.databases.get("no-such-database")],
      ["a flow control key", () => client.flowControl({ region: "eu-central-1" }).get("no-such-key")],
      ["a queue", () => client.queues({ region: "eu-central-1" }).get("no-such-queue")],
    ];
    test.each(reads)(
      "%s that does not exist: a NotFoundError, isNotFound, and ifFound gives undefined",
      async (_what, read) => {
        const err: unknown = await read().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(NotFoundError);
        expect(err).toBeInstanceOf(MgmtError);
        expect(isNotFound(err)).toBe(true);
        await expect(ifFound(read())).resolves.toBeUndefined();
      },
    );
  });
});
