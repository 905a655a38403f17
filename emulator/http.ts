/**
 * What every API area of the emulator shares: the error that becomes a contract-shaped answer,
 * the request context a handler sees, and small request checks.
 */
import type { z } from "zod";
import { describeIssues } from "pulumi-mgmt/internal/api/schemas";
import type { Controls } from "./controls";
import type { Account, Data, User } from "./state";
import type { SearchRegion } from "pulumi-mgmt/internal/api/schemas";

/** Answered as `{"error": message}` with this status. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type Params = Record<string, string>;

export interface Ctx {
  params: Params;
  query: Params;
  /** A JSON body parsed; a schedule's create body as its text (the message it sends). */
  body: unknown;
  /** The request's headers, names in lower case. */
  headers: Record<string, string | string[] | undefined>;
  /** The management API's user (HTTP Basic), or a 401. */
  user: () => User;
  /** The messaging API's account (Bearer token, valid in its own region only), or a 401. */
  account: () => Account;
}

export type Handler = (ctx: Ctx) => { status?: number; body: unknown; mutates?: boolean };

/** What the handlers of an API area read and change. */
export interface EmulatorState {
  data: Data;
  placement: Partial<Record<SearchRegion, SearchRegion>>;
  readonly controls: Controls;
}

/** The success answer of every action: the JSON string "OK" (contract). */
export const OK = { body: "OK", mutates: true } as const;

export function jsonObject(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== "object" || Array.isArray(body))
    throw new HttpError(400, "the request body must be a JSON object");
  return body as Record<string, unknown>;
}

/** Parses with a wire schema; a failure is a 400 naming each field. */
export function parseOr400<T extends z.ZodType>(schema: T, value: unknown, what = ""): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new HttpError(400, `${what ? `invalid ${what}: ` : ""}${describeIssues(parsed.error).join("; ")}`);
  return parsed.data;
}
