import { checkSettingKeys, ConfigError, requireSetting, resolveSettings } from "../../provider/config";
import { fillRoute } from "../../provider/api/request";
import {
  AmbiguousError,
  ApiError,
  apiError,
  isNotFound,
  NotFoundError,
  RateLimitedError,
  redactCredentials,
  RefusedError,
  serviceMessageOf,
  UnauthorizedError,
} from "../../provider/api/errors";
import { UserError } from "../../provider/userError";
import { isStacklessErrorEcho } from "../../provider/hostEcho";
import { act } from "../../provider/resources/messagingActions";

describe("settings", () => {
  test("Pulumi config wins over the environment; defaults fill the rest", () => {
    const s = resolveSettings((k) => ({ "mgmt:baseUrl": "http://from-config" })[k], {
      MGMT_BASE_URL: "http://from-env",
      MGMT_USERNAME: "u",
      MGMT_TIMEOUT_MS: "2500",
    });
    expect(s).toMatchObject({
      baseUrl: "http://from-config",
      username: "u",
      timeoutMs: 2500,
      connectTimeoutMs: 5000,
      maxRetries: 5,
    });
  });

  test("a missing setting is an error that names the key, the variable and how to set it", () => {
    const s = resolveSettings(() => undefined, {});
    expect(() => requireSetting(s, "password", "authenticate")).toThrow(
      "mgmt:password is not set (needed to authenticate): run `pulumi config set --secret mgmt:password ...` or set MGMT_PASSWORD",
    );
  });

  test.each([
    [{ MGMT_BASE_URL: "ftp://x" }, /mgmt:baseUrl \(or MGMT_BASE_URL\) must be an http:\/\/ or https:\/\/ address/],
    [{ MGMT_BASE_URL: "not a url" }, /must be an http/],
    [{ MGMT_REGIONAL_MESSAGING_URL: "http://x" }, /must contain the placeholder \{region\}/],
    [{ MGMT_TIMEOUT_MS: "soon" }, /mgmt:timeoutMs \(or MGMT_TIMEOUT_MS\) must be a whole number/],
    [{ MGMT_MAX_RETRIES: "-1" }, /mgmt:maxRetries/],
  ])("bad settings are refused: %j", (env, message) => {
    expect(() => resolveSettings(() => undefined, env)).toThrow(ConfigError);
    expect(() => resolveSettings(() => undefined, env)).toThrow(message);
  });
});

describe("unknown mgmt:* keys", () => {
  test.each([
    ["mgmt:baseurl", "mgmt:baseUrl"],
    ["mgmt:BASEURL", "mgmt:baseUrl"],
    ["mgmt:pasword", "mgmt:password"],
    ["mgmt:maxRetry", "mgmt:maxRetries"],
  ])("%s: did you mean %s?", (typo, meant) => {
    expect(() => checkSettingKeys(["mgmt:username", typo])).toThrow(
      `${typo} is not a pulumi-mgmt setting: did you mean \`${meant}\`?`,
    );
  });

  test("a key like no setting lists the settings; other namespaces and known keys pass", () => {
    expect(() => checkSettingKeys(["mgmt:colour"])).toThrow(
      /mgmt:colour is not a pulumi-mgmt setting; the settings are mgmt:baseUrl, mgmt:username, /,
    );
    expect(() => checkSettingKeys(["aws:region", "myproject:baseurl", "mgmt:baseUrl", "mgmt:movedFrom"])).not.toThrow();
  });
});

describe("paths and errors", () => {
  test("every parameter is one percent-encoded segment", () => {
    expect(fillRoute("/v2/flowControl/:key/pause", { key: "a/b c" })).toBe("/v2/flowControl/a%2Fb%20c/pause");
    expect(fillRoute("/v2/queues/:queue/resume", { queue: ".." })).toBe("/v2/queues/%2E%2E/resume");
    expect(() => fillRoute("/v2/search/:id", {})).toThrow(/needs parameter id/);
  });

  test("the service's text comes from {error}, a bare JSON string, or the raw body", () => {
    expect(serviceMessageOf({ error: "boom" }, "")).toBe("boom");
    expect(serviceMessageOf("plain", '"plain"')).toBe("plain");
    expect(serviceMessageOf(undefined, "<html>bad gateway</html>")).toBe("<html>bad gateway</html>");
    expect(serviceMessageOf(undefined, "")).toBeUndefined();
  });

  test("credentials the client sent are taken out of the service's text, and so is any Basic or Bearer value", () => {
    const basic = Buffer.from("alice:s3cret-pw").toString("base64");
    const said = `denied: Authorization: Basic ${basic} (alice:s3cret-pw), password s3cret-pw, also Bearer tok_abc.123 and bearer other-token`;
    const out = redactCredentials(said, [basic, "alice:s3cret-pw", "s3cret-pw", "tok_abc.123"]);
    expect(out).toBe(
      "denied: Authorization: Basic [redacted] ([redacted]), password [redacted], also Bearer [redacted] and bearer [redacted]",
    );
    // Short strings are not treated as secrets: they would shred ordinary text.
    expect(redactCredentials("a b c", ["a", ""])).toBe("a b c");
  });

  test("messages carry method, path, status and advice", () => {
    expect(new ApiError("GET", "/v2/search", "management", 401, "unauthorized").message).toBe(
      "GET /v2/search failed: 401: unauthorized (check mgmt:username and mgmt:password (or MGMT_USERNAME and MGMT_PASSWORD); " +
        "if you changed them since the last `pulumi up`, a plain `pulumi refresh` or `pulumi destroy` still uses the ones recorded then: " +
        "add `--run-program` to it (or run `pulumi up` first) to use the current config)",
    );
    const lost = apiError("POST", "/v2/search", "management", undefined, undefined, "ECONNRESET");
    expect(lost.isAmbiguous).toBe(true);
    // An address changed since the last up fails a plain destroy the way a password does: same way out.
    expect(lost.message).toBe(
      "POST /v2/search failed: no answer (ECONNRESET; check mgmt:baseUrl (or MGMT_BASE_URL) and that the service is reachable; " +
        "if you changed it since the last `pulumi up`, a plain `pulumi refresh` or `pulumi destroy` still uses the one recorded then: " +
        "add `--run-program` to it (or run `pulumi up` first) to use the current config)",
    );
  });

  test("one error family: each failure is the ApiError subclass of its kind, and `about` names the object without changing the kind", () => {
    const kinds: [number | undefined, Function][] = [
      [undefined, AmbiguousError],
      [503, AmbiguousError],
      [404, NotFoundError],
      [401, UnauthorizedError],
      [429, RateLimitedError],
      [409, RefusedError],
      [412, RefusedError],
    ];
    for (const [status, kind] of kinds) {
      const err = apiError("POST", "/v2/x", "regional", status, "said");
      expect(err).toBeInstanceOf(kind);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toBeInstanceOf(UserError);
      const told = err.about('could not pause flow control key "k" in eu-central-1', "the service answered it");
      expect(told).toBeInstanceOf(kind);
      expect(told.message).toBe('could not pause flow control key "k" in eu-central-1: the service answered it');
      expect([told.status, told.method, told.path, isNotFound(told), told.isAmbiguous]).toEqual([
        status,
        "POST",
        "/v2/x",
        status === 404,
        status === undefined || status === 503,
      ]);
      expect(told.stack).toBe("");
    }
    expect(apiError("GET", "/v2/x", "management", 404).about('search index "x"').message).toBe(
      'search index "x": GET /v2/x failed: 404',
    );
  });

  test("a key or queue call that got no answer says so once, not 'the service answered ... no answer'", async () => {
    const refused = () =>
      Promise.reject(apiError("GET", "/v2/flowControl/tenant-7", "regional", undefined, undefined, "ECONNREFUSED"));
    const err = await act('flow control key "tenant-7"', "read", { region: "eu-central-1" }, refused).catch(
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(AmbiguousError);
    expect(err.message).toMatch(
      /^could not read flow control key "tenant-7" in eu-central-1: GET \/v2\/flowControl\/tenant-7 failed: no answer \(ECONNREFUSED; check mgmt:regionalMessagingUrl /,
    );
    expect(err.message).toContain("add `--run-program` to it (or run `pulumi up` first)");
    expect(err.message).not.toMatch(/answered/);
  });

  test("the provider host's echo of an error without a stack is recognised; any other line is not", () => {
    const told = apiError("GET", "/v2/x", "regional", undefined).about('could not read queue "q" in eu-central-1');
    // What Pulumi's dynamic provider host prints before returning the error (cmd/dynamic-provider).
    expect(isStacklessErrorEcho([`${told}: ${told.stack}`])).toBe(true);
    const plain = new Error("a bug");
    expect(isStacklessErrorEcho([`${plain}: ${plain.stack}`])).toBe(false);
    expect(isStacklessErrorEcho(["Error: see: ", "more"])).toBe(false);
    expect(isStacklessErrorEcho(["some log line"])).toBe(false);
  });
});
