import { SETTINGS_KEYS as K } from "../config";
import type { Api } from "./endpoints";
import { ErrorBody } from "./schemas";
import { UserError } from "../userError";

/**
 * A plain `refresh` or `destroy` configures providers with the settings recorded at the last
 * `up`, so a fixed config still fails there: every error that a setting can cause says so, with
 * the way out.
 */
const RECORDED_SETTINGS = (them: "it" | "them") =>
  `if you changed ${them} since the last \`pulumi up\`, a plain \`pulumi refresh\` or \`pulumi destroy\` still uses the ${them === "it" ? "one" : "ones"} recorded then: ` +
  `add \`--run-program\` to it (or run \`pulumi up\` first) to use the current config`;

/** What a user should check for each status, by API. Never includes a credential's value. */
function hint(api: Api, status: number | undefined, code: string | undefined): string | undefined {
  if (status === undefined) {
    // Both names: a fleet worker or a driver takes the address from the environment.
    const key = K[api === "management" ? "baseUrl" : api === "messaging" ? "messagingUrl" : "regionalMessagingUrl"];
    return `${code ?? "network error"}; check ${key.config} (or ${key.env}) and that the service is reachable; ${RECORDED_SETTINGS("it")}`;
  }
  if (status === 401) {
    const check =
      api === "management"
        ? `check ${K.username.config} and ${K.password.config} (or ${K.username.env} and ${K.password.env})`
        : `check the messaging token (${K.messagingToken.config}, ${K.messagingToken.env} or the token given to the resource) and that it belongs to an account in this region`;
    return `${check}; ${RECORDED_SETTINGS("them")}`;
  }
  if (status === 429) return "the service is rate limiting; retries were exhausted, run again later";
  if (status >= 500) return "the service failed; retries were exhausted, run again later";
  return undefined;
}

/**
 * The one error type of the client: which request, what status, what the service said.
 * `status` is undefined when no answer arrived (timeout, refused or dropped connection). The
 * client throws the subclass of its kind (`apiError`); `about` tells the same failure about one
 * object, keeping its kind, so a caller names the resource without a second error type.
 */
export class ApiError extends UserError {
  override name = "ApiError";
  constructor(
    readonly method: string,
    readonly path: string,
    readonly api: Api,
    readonly status: number | undefined,
    /** The service's own error text, from `{"error": ...}` or a bare JSON string. */
    readonly serviceMessage: string | undefined,
    /** undici's error code for failures without an answer, e.g. ECONNRESET. */
    readonly code?: string,
  ) {
    const what = status === undefined ? "no answer" : `${status}${serviceMessage ? `: ${serviceMessage}` : ""}`;
    const advice = hint(api, status, code);
    super(`${method} ${path} failed: ${what}${advice ? ` (${advice})` : ""}`);
  }

  /** The same failure, told about one object: `${context}: ${detail}` (default detail: this message). */
  about(context: string, detail: string = this.message): this {
    const copy = Object.create(Object.getPrototypeOf(this)) as this;
    Object.assign(copy, this);
    Object.defineProperty(copy, "message", { value: `${context}: ${detail}`, writable: true, configurable: true });
    Object.defineProperty(copy, "stack", { value: "", writable: true, configurable: true });
    return copy;
  }

  /**
   * The request may or may not have taken effect: no answer at all, or a server failure (a 503
   * can come from a proxy after the service committed). Only a definite 4xx proves nothing
   * happened.
   */
  get isAmbiguous(): boolean {
    return this instanceof AmbiguousError;
  }
}

/** 404: the object does not exist for these credentials (isNotFound; identity.ts decides whether that means gone). */
export class NotFoundError extends ApiError {
  override name = "NotFoundError";
}
/** 401: the credentials were refused. */
export class UnauthorizedError extends ApiError {
  override name = "UnauthorizedError";
  /**
   * A messaging token refused at one region's address but accepted at another's: its account's
   * region (a token is valid only there, contract). Set by the client, which asks the others.
   */
  tokenRegion?: string;
}
/** 429, after the retries: the service is rate limiting. */
export class RateLimitedError extends ApiError {
  override name = "RateLimitedError";
}
/** No answer, or a 5xx: the request may or may not have taken effect. */
export class AmbiguousError extends ApiError {
  override name = "AmbiguousError";
}
/** Any other 4xx (400, 409, 412, ...): a definite refusal, nothing happened. */
export class RefusedError extends ApiError {
  override name = "RefusedError";
}

/**
 * The one not-found predicate: a 404 of the service, also after `about()`. Whether that proves
 * an object of the stack gone is identity.ts's to decide (`believeGone`).
 */
export function isNotFound(err: unknown): err is NotFoundError {
  return err instanceof NotFoundError;
}

/** The one "get, or undefined on 404": the request's value, undefined when the service has no such object; any other failure stands. */
export async function ifFound<T>(request: Promise<T>): Promise<T | undefined> {
  try {
    return await request;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** The error of one failed request, of its kind. */
export function apiError(
  method: string,
  path: string,
  api: Api,
  status: number | undefined,
  serviceMessage?: string,
  code?: string,
): ApiError {
  const kind =
    status === undefined || status >= 500
      ? AmbiguousError
      : status === 404
        ? NotFoundError
        : status === 401
          ? UnauthorizedError
          : status === 429
            ? RateLimitedError
            : status >= 400
              ? RefusedError
              : ApiError; // a 2xx answer that is not what the specification says
  return new kind(method, path, api, status, serviceMessage, code);
}

const REDACTED = "[redacted]";

/**
 * The forms in which a body may carry a credential: as sent, escaped as JSON encoders write it
 * (quotes and backslashes; non-ASCII as \uXXXX, as Python's default does; `/` as `\/`, as PHP's
 * does), and percent-encoded, as a URL or a form would.
 */
function echoedForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const ascii = json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return [secret, json, ascii, json.replace(/\//g, "\\/"), ascii.replace(/\//g, "\\/"), encodeURIComponent(secret)];
}

const regexEscaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Service text is untrusted: a proxy or a careless error page may echo the request, headers
 * included. Removes every credential the client sent (`secrets`: the password, the Basic value
 * and its decoded form, bearer tokens), in every form a body may carry it (echoedForms), and any
 * Basic or Bearer header value, before the text can reach a message, a log or the engine's output.
 * Matching ignores case: escapes are written in either case, and a near-copy of a credential is
 * no less worth hiding.
 */
export function redactCredentials(text: string, secrets: readonly (string | undefined)[]): string {
  const forms = [...new Set(secrets.filter((s): s is string => !!s && s.length >= 4).flatMap(echoedForms))]
    // Longest first, so that "user:password" goes whole before "password" alone.
    .sort((a, b) => b.length - a.length);
  const out = forms.length === 0 ? text : text.replace(new RegExp(forms.map(regexEscaped).join("|"), "gi"), REDACTED);
  return out.replace(/\b(Basic|Bearer)(\s+)(?!\[redacted\])[A-Za-z0-9._~+/=-]+/gi, `$1$2${REDACTED}`);
}

/** Reads `{"error": "..."}`, a bare JSON string, or falls back to a short excerpt of the text. */
export function serviceMessageOf(body: unknown, text: string): string | undefined {
  if (typeof body === "string") return body;
  const parsed = ErrorBody.safeParse(body);
  if (parsed.success) return parsed.data.error;
  const trimmed = text.trim();
  return trimmed ? trimmed.slice(0, 200) : undefined;
}
