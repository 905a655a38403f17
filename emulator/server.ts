/**
 * The service double: the management API, the region-less messaging API and the regional
 * messaging API (region embedded in the path), exactly per management-api.md and contract.md,
 * plus test controls under /_emulator, answered only to loopback clients.
 *
 * Routes come from the same endpoint table the client uses (provider/api/endpoints.ts); each API
 * area's handlers live in routes/. This file holds what all of them share: authentication, the
 * fault injection hooks and the request log.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { ENDPOINTS, type Api, type Endpoint, type EndpointName } from "pulumi-mgmt/internal/api/endpoints";
import { MESSAGING_REGIONS, type MessagingAccountRecord, type SearchRegion } from "pulumi-mgmt/internal/api/schemas";
import { Controls } from "./controls";
import { HttpError, type Ctx, type Handler, type Params } from "./http";
import { accountHandlers } from "./routes/accounts";
import { databaseHandlers } from "./routes/databases";
import { flowControlHandlers } from "./routes/flowControl";
import { queueHandlers } from "./routes/queues";
import { scheduleHandlers } from "./routes/schedules";
import { searchHandlers } from "./routes/search";
import { signingKeyHandlers } from "./routes/signingKeys";
import { urlGroupHandlers } from "./routes/urlGroups";
import { installTestControls, type TestControlsHost } from "./routes/testControls";
import {
  newAccount,
  saveData,
  seedData,
  type Account,
  type Data,
  type Database,
  type SeedUser,
  type SigningKeys,
  type User,
} from "./state";
export type { SeedUser } from "./state";

export const API_PREFIX: Record<Api, string> = {
  management: "",
  messaging: "/messaging",
  regional: "/regional/:region",
};

export interface EmulatorServerOptions {
  data?: Data;
  dataFile?: string;
  /** Answer requests for one search region by deploying in another, e.g. { "us-central1": "eu-west-1" }. */
  placement?: Partial<Record<SearchRegion, SearchRegion>>;
  /** Request bodies above this many bytes are refused with 400. */
  bodyLimit?: number;
}

export class Emulator implements TestControlsHost {
  readonly app: FastifyInstance;
  readonly controls = new Controls();
  data: Data;
  placement: Partial<Record<SearchRegion, SearchRegion>>;
  /** The accounts' and databases' records as they were at start: reset() puts them back. */
  private readonly seededAccounts: Map<string, MessagingAccountRecord>;
  /** The accounts' signing keys as they were at start: reset() puts them back (a rotation is undone). */
  private readonly seededSigningKeys: Map<string, SigningKeys>;
  private readonly seededDatabases: Database[];

  constructor(private readonly options: EmulatorServerOptions = {}) {
    this.data = options.data ?? seedData();
    this.placement = { ...options.placement };
    this.seededAccounts = new Map(this.data.accounts.map((a) => [a.record.id, structuredClone(a.record)]));
    this.seededSigningKeys = new Map(this.data.accounts.map((a) => [a.record.id, { ...a.signingKeys }]));
    this.seededDatabases = structuredClone(this.data.databases);
    this.app = Fastify({ bodyLimit: options.bodyLimit ?? 64 * 1024, logger: false });
    this.app.server.on("connection", () => {
      this.controls.connections += 1;
    });
    this.installHooks();
    this.installApi();
    this.installControls();
  }

  persist(): void {
    if (this.options.dataFile) saveData(this.options.dataFile, this.data);
  }

  // ---------------------------------------------------------------------------------------------

  private installHooks(): void {
    const app = this.app;
    // Every failure, ours or fastify's (malformed JSON, body too large, wrong content type),
    // answers in the contract's shape; bad input is a 400, never a crash.
    app.setErrorHandler((err: Error & { statusCode?: number; validation?: unknown }, _req, reply) => {
      if (err instanceof HttpError) return reply.status(err.status).send({ error: err.message });
      const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? 400 : 500;
      return reply.status(status).send({ error: status === 400 ? `bad request: ${err.message}` : "internal error" });
    });
    // Real clients send `Content-Type: application/json` on every request, bodiless POST and
    // DELETE included (an index delete, a token reset); the service takes them, so an empty body
    // is no body here too. Anything else goes to fastify's own parser (and its safety checks).
    const json = app.getDefaultJsonParser("error", "ignore");
    app.removeContentTypeParser("application/json");
    app.addContentTypeParser("application/json", { parseAs: "string" }, (req, body, done) => {
      if (isScheduleCreate(req)) return done(null, body);
      if (body === "") return done(null, undefined);
      json(req, body as string, done);
    });
    // A schedule's body is the message it sends, of any content type: kept as text, never parsed.
    app.addContentTypeParser("*", { parseAs: "string" }, (req, body, done) => {
      if (isScheduleCreate(req)) return done(null, body);
      const unsupported = Object.assign(new Error(`Unsupported Media Type: ${req.headers["content-type"]}`), {
        statusCode: 415,
      });
      done(unsupported, undefined);
    });
    app.setNotFoundHandler((req, reply) =>
      reply.status(404).send({ error: `no route for ${req.method} ${req.url.split("?")[0]}` }),
    );

    // Per-request state of the fault hooks: declared once, set per request (never a shared object).
    app.decorateRequest("injected", null as unknown as Injected);
    app.addHook("onRequest", async (req, reply) => {
      if (isControl(req)) return;
      req.injected = { seq: this.controls.arrival() };
      const path = req.url.split("?")[0];
      if (this.controls.latencyMs > 0) await sleep(this.controls.latencyMs);
      const fault = this.controls.takeFault(req.method, path);
      if (fault?.delayMs) {
        req.injected.fault = `delay ${fault.delayMs} ms`;
        await sleep(fault.delayMs);
      }
      if (fault?.hold) {
        req.injected.fault = "held at the gate";
        await this.controls.hold();
      }
      if (fault?.drop) {
        this.controls.record({
          seq: req.injected.seq,
          method: req.method,
          path,
          route: routeOf(req),
          status: "dropped",
          fault: "drop",
        });
        drop(req, reply);
        return reply;
      }
      if (fault?.commitThenDrop) req.injected.commitThenDrop = true;
      if (fault?.commitThenStatus) {
        req.injected.fault = `commit then ${fault.commitThenStatus}`;
        req.injected.commitThenStatus = fault.commitThenStatus;
      }
      if (fault?.stallBodyMs) {
        req.injected.fault = `body stalled ${fault.stallBodyMs} ms`;
        req.injected.stallBodyMs = fault.stallBodyMs;
      }
      if (fault?.delayAfterMs) {
        req.injected.fault = `answer delayed ${fault.delayAfterMs} ms`;
        req.injected.delayAfterMs = fault.delayAfterMs;
      }
      if (fault?.status) {
        req.injected.fault = `status ${fault.status}`;
        if (fault.retryAfter !== undefined) reply.header("retry-after", String(fault.retryAfter));
        return reply.status(fault.status).send({
          error: fault.echoAuthorization
            ? `injected fault; ${echoedAuthorization(req.headers.authorization)}`
            : "injected fault",
        });
      }
      if (this.controls.overRateLimit()) {
        req.injected.fault = "rate limit";
        return reply.status(429).header("retry-after", "1").send({ error: "rate limit exceeded, retry later" });
      }
    });

    // A client that gives up (its timeout) before the answer: fastify sends no response event.
    app.addHook("onRequestAbort", async (req) => {
      if (isControl(req) || req.injected.dropped) return;
      this.recordAbandoned(req);
    });

    app.addHook("onResponse", async (req, reply) => {
      if (isControl(req)) return;
      const [path, query] = req.url.split("?");
      this.controls.record({
        seq: req.injected.seq,
        method: req.method,
        path,
        query,
        route: routeOf(req),
        status: reply.statusCode,
        fault: req.injected.fault,
      });
    });
  }

  /** A request whose client gave up before the answer (its timeout): fastify logs nothing for it, the request log does, once. */
  private recordAbandoned(req: FastifyRequest): void {
    req.injected.dropped = true;
    this.controls.record({
      seq: req.injected.seq,
      method: req.method,
      path: req.url.split("?")[0],
      route: routeOf(req),
      status: "abandoned",
      fault: req.injected.fault,
    });
  }

  private installApi(): void {
    const handlers = this.handlers();
    for (const [name, endpoint] of Object.entries(ENDPOINTS) as [EndpointName, Endpoint][]) {
      // A `regionalToo` read is answered under the regional addresses as well (contract).
      for (const api of endpoint.regionalToo ? [endpoint.api, "regional" as const] : [endpoint.api])
        this.installRoute(name, endpoint, api, handlers);
    }
    // The vendor's messaging SDK sends a destination URL unencoded (several path segments) and
    // pauses and resumes schedules with PATCH: the service answers both forms.
    const { createSchedule, pauseSchedule, resumeSchedule } = ENDPOINTS;
    this.installRoute("createSchedule", { ...createSchedule, route: "/v2/schedules/*" }, "regional", handlers);
    this.installRoute("pauseSchedule", { ...pauseSchedule, method: "PATCH" }, "regional", handlers);
    this.installRoute("resumeSchedule", { ...resumeSchedule, method: "PATCH" }, "regional", handlers);
  }

  private installRoute(
    name: EndpointName,
    endpoint: Endpoint,
    api: Api,
    handlers: Record<EndpointName, Handler>,
  ): void {
    this.app.route({
      method: endpoint.method,
      url: API_PREFIX[api] + endpoint.route,
      handler: async (req, reply) => {
        const params = { ...(req.params as Params) };
        // A destination sent unencoded (the vendor's SDK) is the rest of the path.
        if (params["*"] !== undefined) params.destination ??= params["*"];
        const ctx: Ctx = {
          params,
          query: (req.query ?? {}) as Params,
          body: req.body,
          headers: req.headers,
          user: () => this.authenticateUser(req),
          account: () => this.authenticateToken(req, api, params.region),
        };
        const result = handlers[name](ctx);
        if (result.mutates) this.persist();
        const delayAfter = req.injected.delayAfterMs;
        if (delayAfter) {
          await sleep(delayAfter);
          // The client gave up meanwhile (its timeout): fastify logs nothing for it, we do.
          if (req.raw.socket.destroyed) {
            if (req.injected.dropped) return reply.hijack();
            this.recordAbandoned(req);
            return reply.hijack();
          }
        }
        if (req.injected.commitThenDrop) {
          this.controls.record({
            seq: req.injected.seq,
            method: req.method,
            path: req.url.split("?")[0],
            route: routeOf(req),
            status: "dropped",
            fault: "commit then drop",
          });
          drop(req, reply);
          return reply;
        }
        const stall = req.injected.stallBodyMs;
        if (stall) {
          const text = JSON.stringify(result.body);
          req.injected.dropped = true;
          reply.hijack();
          reply.raw.writeHead(result.status ?? 200, {
            "content-type": "application/json",
            "content-length": String(Buffer.byteLength(text)),
          });
          reply.raw.write(text.slice(0, 1));
          this.controls.record({
            seq: req.injected.seq,
            method: req.method,
            path: req.url.split("?")[0],
            route: routeOf(req),
            status: "stalled",
            fault: `body stalled ${stall} ms`,
          });
          setTimeout(() => reply.raw.destroy(), stall);
          return reply;
        }
        const failAfterCommit = req.injected.commitThenStatus;
        if (failAfterCommit) return reply.status(failAfterCommit).send({ error: "injected fault after commit" });
        reply.status(result.status ?? 200);
        // Success bodies are JSON, including the bare string "OK" (contract).
        return typeof result.body === "string"
          ? reply.type("application/json").send(JSON.stringify(result.body))
          : reply.send(result.body);
      },
    });
  }

  private handlers(): Record<EndpointName, Handler> {
    return {
      ...searchHandlers(this),
      ...accountHandlers(this),
      ...databaseHandlers(this),
      ...flowControlHandlers(this),
      ...queueHandlers(this),
      ...signingKeyHandlers(this),
      ...urlGroupHandlers(this),
      ...scheduleHandlers(this),
    };
  }

  private authenticateUser(req: FastifyRequest): User {
    const header = req.headers.authorization ?? "";
    const match = /^Basic\s+(.+)$/i.exec(header);
    if (match) {
      const decoded = Buffer.from(match[1], "base64").toString("utf8");
      const sep = decoded.indexOf(":");
      const user = this.data.users.find(
        (u) => u.username === decoded.slice(0, sep) && u.password === decoded.slice(sep + 1),
      );
      if (sep > 0 && user) return user;
    }
    throw new HttpError(401, "unauthorized: wrong or missing username and password");
  }

  private authenticateToken(req: FastifyRequest, api: Api, region: string | undefined): Account {
    if (api === "regional" && !(MESSAGING_REGIONS as readonly string[]).includes(region ?? "")) {
      throw new HttpError(404, `unknown region ${region}`);
    }
    const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "");
    const account = match && this.data.accounts.find((a) => a.record.token === match[1] && !a.record.deletion_time);
    if (!account) throw new HttpError(401, "unauthorized: wrong or missing token");
    if (api === "regional" && account.record.region !== region)
      throw new HttpError(401, "user not found in this region");
    return account;
  }

  // ---------------------------------------------------------------------------------------------

  private installControls(): void {
    this.app.register(async (r) => installTestControls(r, this), { prefix: "/_emulator" });
  }

  /** A further messaging account for a user, e.g. to manage many budgets at once. */
  addAccount(username: string, region: (typeof MESSAGING_REGIONS)[number], paid = false): Account {
    const user = this.data.users.find((u) => u.username === username);
    if (!user) throw new HttpError(404, `user ${username} not found`);
    const account = newAccount(user, region, paid);
    this.data.accounts.push(account);
    return account;
  }

  /**
   * Forgets indexes, keys, queues, budgets and controls; users, accounts, databases and
   * credentials stay. Accounts are put back as they started: their tokens and signing keys (a
   * rotation is undone), plan and production pack.
   */
  reset(): void {
    this.data.indexes = [];
    this.data.accounts = this.data.accounts.filter((a) => this.seededAccounts.has(a.record.id));
    for (const a of this.data.accounts) {
      a.keys = {};
      a.queues = {};
      a.topics = {};
      a.schedules = {};
      // In place: a test may hold the record.
      const seeded = structuredClone(this.seededAccounts.get(a.record.id)!);
      for (const field of Object.keys(a.record))
        if (!(field in seeded)) delete (a.record as Record<string, unknown>)[field];
      Object.assign(a.record, seeded);
      a.record.budget = 0;
      a.record.deletion_time = 0;
      Object.assign(a.signingKeys, this.seededSigningKeys.get(a.record.id));
    }
    this.data.databases = structuredClone(this.seededDatabases);
    for (const d of this.data.databases) d.record.budget = 0;
    this.placement = { ...this.options.placement };
    this.controls.reset();
  }

  users(): SeedUser[] {
    return this.data.users.map((u) => ({
      username: u.username,
      password: u.password,
      accounts: this.data.accounts
        .filter((a) => a.owner === u.username)
        .map((a) => ({
          id: a.record.id,
          region: a.record.region,
          type: a.record.type ?? "free",
          token: a.record.token,
        })),
    }));
  }
}

/** What the fault hooks decided for one API request, for its handler and the request log. */
interface Injected {
  /** Arrival order. */
  seq: number;
  commitThenDrop?: boolean;
  commitThenStatus?: number;
  stallBodyMs?: number;
  delayAfterMs?: number;
  /** We closed the connection (or the client did): nothing more is logged or sent. */
  dropped?: boolean;
  /** The fault as the request log names it. */
  fault?: string;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the onRequest hook for every API request (not for the test controls). */
    injected: Injected;
  }
}

/** A schedule create (POST /v2/schedules/<destination>), not its pause or resume. */
function isScheduleCreate(req: FastifyRequest): boolean {
  const rest = /\/v2\/schedules\/(.+)$/.exec(req.url.split("?")[0])?.[1];
  return req.method === "POST" && rest !== undefined && !/^[^/]+\/(pause|resume)$/.test(rest);
}

function isControl(req: FastifyRequest): boolean {
  return req.url.startsWith("/_emulator");
}

function routeOf(req: FastifyRequest): string {
  return `${req.method} ${req.routeOptions.url ?? req.url.split("?")[0]}`;
}

function drop(req: FastifyRequest, reply: FastifyReply): void {
  req.injected.dropped = true;
  reply.hijack();
  req.raw.socket.destroy();
}

/** A request's injected wait; it keeps no process alive once the server is closed (a test's long delay). */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** What a careless service prints of a request's credentials (FaultRule.echoAuthorization). */
function echoedAuthorization(header: string | undefined): string {
  if (!header) return "no Authorization header";
  const [scheme, value = ""] = header.split(" ");
  const decoded = scheme === "Basic" ? ` (user and password: ${Buffer.from(value, "base64").toString("utf8")})` : "";
  return `request had Authorization: ${header}${decoded}; token ${value}`;
}
