/**
 * The service double: the management API, the region-less messaging API and the regional
 * messaging API (region embedded in the path), exactly per management-api.md and contract.md,
 * plus test controls under /_emulator, answered only to loopback clients.
 *
 * Routes come from the same endpoint table the client uses (provider/api/endpoints.ts).
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { z } from "zod";
import { ENDPOINTS, type Api, type EndpointName } from "../provider/api/endpoints";
import {
  CreateSearchIndexBody,
  MESSAGING_REGIONS,
  RenameSearchIndexBody,
  SEARCH_REGIONS,
  SetPlanBody,
  UpdateBudgetBody,
  describeIssues,
  flowControlKey,
  queueName,
  type SearchRegion,
} from "../provider/api/schemas";
import { Controls, FaultRule } from "./controls";
import { newAccount, newIndexRecord, saveData, setIndexPlan, seedData, type Account, type Data, type User } from "./state";

export const API_PREFIX: Record<Api, string> = {
  management: "",
  messaging: "/messaging",
  regional: "/regional/:region",
};

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Params = Record<string, string>;
interface Ctx {
  params: Params;
  body: unknown;
  user: () => User;
  account: () => Account;
}
type Handler = (ctx: Ctx) => { status?: number; body: unknown; mutates?: boolean };

export interface EmulatorServerOptions {
  data?: Data;
  dataFile?: string;
  /** Answer requests for one search region by deploying in another, e.g. { "us-central1": "eu-west-1" }. */
  placement?: Partial<Record<SearchRegion, SearchRegion>>;
  /** Request bodies above this many bytes are refused with 400. */
  bodyLimit?: number;
}

export class Emulator {
  readonly app: FastifyInstance;
  readonly controls = new Controls();
  data: Data;
  placement: Partial<Record<SearchRegion, SearchRegion>>;
  private readonly seededAccounts: Set<string>;

  constructor(private readonly options: EmulatorServerOptions = {}) {
    this.data = options.data ?? seedData();
    this.placement = { ...options.placement };
    this.seededAccounts = new Set(this.data.accounts.map((a) => a.record.id));
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
    app.setNotFoundHandler((req, reply) => reply.status(404).send({ error: `no route for ${req.method} ${req.url.split("?")[0]}` }));

    app.addHook("onRequest", async (req, reply) => {
      if (isControl(req)) return;
      (req as FaultedRequest).seq = this.controls.arrival();
      const path = req.url.split("?")[0];
      if (this.controls.latencyMs > 0) await sleep(this.controls.latencyMs);
      const fault = this.controls.takeFault(req.method, path);
      if (fault?.delayMs) {
        (req as FaultedRequest).fault = `delay ${fault.delayMs} ms`;
        await sleep(fault.delayMs);
      }
      if (fault?.hold) {
        (req as FaultedRequest).fault = "held at the gate";
        await this.controls.hold();
      }
      if (fault?.drop) {
        this.controls.record({ seq: (req as FaultedRequest).seq, method: req.method, path, route: routeOf(req), status: "dropped", fault: "drop" });
        drop(req, reply);
        return reply;
      }
      if (fault?.commitThenDrop) (req as FaultedRequest).commitThenDrop = true;
      if (fault?.commitThenStatus) {
        (req as FaultedRequest).fault = `commit then ${fault.commitThenStatus}`;
        (req as FaultedRequest).commitThenStatus = fault.commitThenStatus;
      }
      if (fault?.stallBodyMs) {
        (req as FaultedRequest).fault = `body stalled ${fault.stallBodyMs} ms`;
        (req as FaultedRequest).stallBodyMs = fault.stallBodyMs;
      }
      if (fault?.delayAfterMs) {
        (req as FaultedRequest).fault = `answer delayed ${fault.delayAfterMs} ms`;
        (req as FaultedRequest).delayAfterMs = fault.delayAfterMs;
      }
      if (fault?.status) {
        (req as FaultedRequest).fault = `status ${fault.status}`;
        if (fault.retryAfter !== undefined) reply.header("retry-after", String(fault.retryAfter));
        return reply.status(fault.status).send({ error: "injected fault" });
      }
      if (this.controls.overRateLimit()) {
        (req as FaultedRequest).fault = "rate limit";
        return reply.status(429).header("retry-after", "1").send({ error: "rate limit exceeded, retry later" });
      }
    });

    // A client that gives up (its timeout) before the answer: fastify sends no response event.
    app.addHook("onRequestAbort", async (req) => {
      if (isControl(req) || (req as FaultedRequest).dropped) return;
      (req as FaultedRequest).dropped = true;
      this.controls.record({ seq: (req as FaultedRequest).seq, method: req.method, path: req.url.split("?")[0], route: routeOf(req), status: "abandoned", fault: (req as FaultedRequest).fault });
    });

    app.addHook("onResponse", async (req, reply) => {
      if (isControl(req)) return;
      this.controls.record({ seq: (req as FaultedRequest).seq, method: req.method, path: req.url.split("?")[0], route: routeOf(req), status: reply.statusCode, fault: (req as FaultedRequest).fault });
    });
  }

  private installApi(): void {
    const handlers = this.handlers();
    for (const [name, endpoint] of Object.entries(ENDPOINTS) as [EndpointName, (typeof ENDPOINTS)[EndpointName]][]) {
      const url = API_PREFIX[endpoint.api] + endpoint.route;
      this.app.route({
        method: endpoint.method,
        url,
        handler: async (req, reply) => {
          const params = req.params as Params;
          const ctx: Ctx = {
            params,
            body: req.body,
            user: () => this.authenticateUser(req),
            account: () => this.authenticateToken(req, endpoint.api, params.region),
          };
          const result = handlers[name](ctx);
          if (result.mutates) this.persist();
          const delayAfter = (req as FaultedRequest).delayAfterMs;
          if (delayAfter) {
            await sleep(delayAfter);
            // The client gave up meanwhile (its timeout): fastify logs nothing for it, we do.
            if (req.raw.socket.destroyed) {
              if ((req as FaultedRequest).dropped) return reply.hijack();
              (req as FaultedRequest).dropped = true;
              this.controls.record({ seq: (req as FaultedRequest).seq, method: req.method, path: req.url.split("?")[0], route: routeOf(req), status: "abandoned", fault: (req as FaultedRequest).fault });
              return reply.hijack();
            }
          }
          if ((req as FaultedRequest).commitThenDrop) {
            this.controls.record({ seq: (req as FaultedRequest).seq, method: req.method, path: req.url.split("?")[0], route: routeOf(req), status: "dropped", fault: "commit then drop" });
            drop(req, reply);
            return reply;
          }
          const stall = (req as FaultedRequest).stallBodyMs;
          if (stall) {
            const text = JSON.stringify(result.body);
            (req as FaultedRequest).dropped = true;
            reply.hijack();
            reply.raw.writeHead(result.status ?? 200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) });
            reply.raw.write(text.slice(0, 1));
            this.controls.record({ seq: (req as FaultedRequest).seq, method: req.method, path: req.url.split("?")[0], route: routeOf(req), status: "stalled", fault: `body stalled ${stall} ms` });
            setTimeout(() => reply.raw.destroy(), stall);
            return reply;
          }
          const failAfterCommit = (req as FaultedRequest).commitThenStatus;
          if (failAfterCommit) return reply.status(failAfterCommit).send({ error: "injected fault after commit" });
          reply.status(result.status ?? 200);
          // Success bodies are JSON, including the bare string "OK" (contract).
          return typeof result.body === "string" ? reply.type("application/json").send(JSON.stringify(result.body)) : reply.send(result.body);
        },
      });
    }
  }

  private handlers(): Record<EndpointName, Handler> {
    const indexOf = (user: User, id: string) => {
      const row = this.data.indexes.find((i) => i.record.id === id && i.owner === user.username);
      if (!row) throw new HttpError(404, `search index ${id} not found`);
      return row;
    };
    const nameTaken = (user: User, name: string) => this.data.indexes.some((i) => i.owner === user.username && i.record.name === name);
    const checkName = (schema: z.ZodType, value: string, what: string) => {
      const parsed = schema.safeParse(value);
      if (!parsed.success) throw new HttpError(400, `invalid ${what}: ${describeIssues(parsed.error).join("; ")}`);
    };
    const keyOf = (ctx: Ctx) => {
      checkName(flowControlKey, ctx.params.key, "flow control key");
      const account = ctx.account();
      const key = account.keys[ctx.params.key];
      if (!key) throw new HttpError(404, `flow control key ${ctx.params.key} not found`);
      return key;
    };
    const OK = { body: "OK", mutates: true };

    return {
      createSearchIndex: (ctx) => {
        const user = ctx.user();
        const body = jsonObject(ctx.body);
        if (body.type === "fixed") throw new HttpError(400, "fixed plan is not available");
        const parsed = CreateSearchIndexBody.safeParse(body);
        if (!parsed.success) throw new HttpError(400, describeIssues(parsed.error).join("; "));
        const { name, region, type } = parsed.data;
        if (nameTaken(user, name)) throw new HttpError(409, `a search index named ${name} already exists`);
        const record = newIndexRecord(user, name, this.placement[region] ?? region, type as "free" | "payg");
        this.data.indexes.push({ owner: user.username, record });
        return { body: record, mutates: true };
      },
      getSearchIndex: (ctx) => {
        const row = indexOf(ctx.user(), ctx.params.id);
        // Metrics move all the time (contract): every read sees a new point.
        const points = row.record.throughput_vector ?? [];
        points.push({ x: metricTime(), y: Math.round(Math.random() * 100) });
        row.record.throughput_vector = points.slice(-10);
        return { body: row.record };
      },
      listSearchIndexes: (ctx) => {
        const user = ctx.user();
        return { body: this.data.indexes.filter((i) => i.owner === user.username).map((i) => i.record) };
      },
      renameSearchIndex: (ctx) => {
        const user = ctx.user();
        const row = indexOf(user, ctx.params.id);
        const parsed = RenameSearchIndexBody.safeParse(jsonObject(ctx.body));
        if (!parsed.success) throw new HttpError(400, describeIssues(parsed.error).join("; "));
        if (parsed.data.name !== row.record.name && nameTaken(user, parsed.data.name)) {
          throw new HttpError(409, `a search index named ${parsed.data.name} already exists`);
        }
        row.record.name = parsed.data.name;
        return OK;
      },
      setSearchIndexPlan: (ctx) => {
        const row = indexOf(ctx.user(), ctx.params.id);
        const body = jsonObject(ctx.body);
        if (body.target_plan === "fixed") throw new HttpError(400, "fixed plan is not available");
        const parsed = SetPlanBody.safeParse(body);
        if (!parsed.success) throw new HttpError(400, describeIssues(parsed.error).join("; "));
        setIndexPlan(row.record, parsed.data.target_plan as "free" | "payg");
        return OK;
      },
      deleteSearchIndex: (ctx) => {
        const row = indexOf(ctx.user(), ctx.params.id);
        this.data.indexes = this.data.indexes.filter((i) => i !== row);
        return OK;
      },
      listMessagingAccounts: (ctx) => {
        const user = ctx.user();
        return { body: this.data.accounts.filter((a) => a.owner === user.username).map((a) => a.record) };
      },
      updateBudget: (ctx) => {
        const user = ctx.user();
        const account = this.data.accounts.find((a) => a.record.id === ctx.params.id && a.owner === user.username && !a.record.deletion_time);
        if (!account) throw new HttpError(404, `messaging account ${ctx.params.id} not found`);
        const parsed = UpdateBudgetBody.safeParse(jsonObject(ctx.body));
        if (!parsed.success) throw new HttpError(400, describeIssues(parsed.error).join("; "));
        account.record.budget = parsed.data.budget;
        return OK;
      },
      getFlowControl: (ctx) => {
        const key = keyOf(ctx);
        return { body: { flowControlKey: ctx.params.key, waitListSize: key.waitListSize } };
      },
      resetRate: (ctx) => {
        keyOf(ctx).rateResets += 1;
        return OK;
      },
      pauseFlowControl: (ctx) => {
        keyOf(ctx).paused = true;
        return OK;
      },
      resumeFlowControl: (ctx) => {
        keyOf(ctx).paused = false;
        return OK;
      },
      resumeQueue: (ctx) => {
        checkName(queueName, ctx.params.queue, "queue name");
        const queue = ctx.account().queues[ctx.params.queue];
        if (!queue) throw new HttpError(404, `queue ${ctx.params.queue} not found`);
        queue.paused = false;
        queue.resumes += 1;
        return OK;
      },
    };
  }

  private authenticateUser(req: FastifyRequest): User {
    const header = req.headers.authorization ?? "";
    const match = /^Basic\s+(.+)$/i.exec(header);
    if (match) {
      const decoded = Buffer.from(match[1], "base64").toString("utf8");
      const sep = decoded.indexOf(":");
      const user = this.data.users.find((u) => u.username === decoded.slice(0, sep) && u.password === decoded.slice(sep + 1));
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
    if (api === "regional" && account.record.region !== region) throw new HttpError(401, "user not found in this region");
    return account;
  }

  // ---------------------------------------------------------------------------------------------

  private installControls(): void {
    const app = this.app;
    const c = this.controls;
    app.register(
      async (r) => {
        r.addHook("onRequest", async (req, reply) => {
          if (!isLoopback(req.socket.remoteAddress)) return reply.status(403).send({ error: "test controls answer loopback clients only" });
        });
        const parse = <T extends z.ZodType>(schema: T, body: unknown): z.infer<T> => {
          const parsed = schema.safeParse(body ?? {});
          if (!parsed.success) throw new HttpError(400, describeIssues(parsed.error).join("; "));
          return parsed.data;
        };
        const accountById = (id: string) => {
          const account = this.data.accounts.find((a) => a.record.id === id);
          if (!account) throw new HttpError(404, `messaging account ${id} not found`);
          return account;
        };
        const done = (persist = true) => {
          if (persist) this.persist();
          return { ok: true };
        };

        r.post("/reset", async () => {
          this.reset();
          return done();
        });
        r.get("/users", async () => this.users());
        r.get("/state", async () => this.data);
        r.get("/log", async () => c.log);
        r.delete("/log", async () => {
          c.resetLog();
          return done(false);
        });
        r.get("/counters", async () => c.counters());
        r.post("/faults", async (req) => {
          c.addFault(parse(FaultRule, req.body));
          return done(false);
        });
        r.delete("/faults", async () => {
          c.clearFaults();
          return done(false);
        });
        r.post("/latency", async (req) => {
          c.latencyMs = parse(z.object({ ms: z.number().int().min(0) }), req.body).ms;
          return done(false);
        });
        r.post("/rate-limit", async (req) => {
          c.setRateLimit(parse(z.object({ perSecond: z.number().int().min(0) }), req.body).perSecond);
          return done(false);
        });
        r.post("/placement", async (req) => {
          const { from, to } = parse(z.object({ from: z.enum(SEARCH_REGIONS), to: z.enum(SEARCH_REGIONS).nullable() }), req.body);
          if (to === null) delete this.placement[from];
          else this.placement[from] = to;
          return done(false);
        });
        r.post("/keys", async (req) => {
          const b = parse(z.object({ accountId: z.string(), key: z.string().min(1), waitListSize: z.number().int().min(0).default(0), paused: z.boolean().default(false) }), req.body);
          const account = accountById(b.accountId);
          const existing = account.keys[b.key];
          account.keys[b.key] = { waitListSize: b.waitListSize, paused: b.paused, rateResets: existing?.rateResets ?? 0 };
          return done();
        });
        r.post("/queues", async (req) => {
          const b = parse(z.object({ accountId: z.string(), name: z.string().min(1), paused: z.boolean().default(true) }), req.body);
          const account = accountById(b.accountId);
          account.queues[b.name] = { paused: b.paused, resumes: account.queues[b.name]?.resumes ?? 0 };
          return done();
        });
        r.post("/accounts", async (req) => {
          const b = parse(z.object({ username: z.string(), region: z.enum(MESSAGING_REGIONS), type: z.enum(["free", "paid"]).default("free") }), req.body);
          const account = this.addAccount(b.username, b.region, b.type === "paid");
          this.persist();
          return { id: account.record.id, token: account.record.token };
        });
        r.post("/accounts/:id/delete", async (req) => {
          accountById((req.params as Params).id).record.deletion_time = Math.floor(Date.now() / 1000);
          return done();
        });
      },
      { prefix: "/_emulator" },
    );
  }

  /** A further messaging account for a user, e.g. to manage many budgets at once. */
  addAccount(username: string, region: (typeof MESSAGING_REGIONS)[number], paid = false): Account {
    const user = this.data.users.find((u) => u.username === username);
    if (!user) throw new HttpError(404, `user ${username} not found`);
    const account = newAccount(user, region, paid);
    this.data.accounts.push(account);
    return account;
  }

  /** Forgets indexes, keys, queues, budgets and controls; users, accounts and credentials stay. */
  reset(): void {
    this.data.indexes = [];
    this.data.accounts = this.data.accounts.filter((a) => this.seededAccounts.has(a.record.id));
    for (const a of this.data.accounts) {
      a.keys = {};
      a.queues = {};
      a.record.budget = 0;
      a.record.deletion_time = 0;
    }
    this.placement = { ...this.options.placement };
    this.controls.reset();
  }

  users(): SeedUser[] {
    return this.data.users.map((u) => ({
      username: u.username,
      password: u.password,
      accounts: this.data.accounts
        .filter((a) => a.owner === u.username)
        .map((a) => ({ id: a.record.id, region: a.record.region, type: a.record.type ?? "free", token: a.record.token })),
    }));
  }
}

export interface SeedUser {
  username: string;
  password: string;
  accounts: { id: string; region: string; type: string; token: string }[];
}

interface FaultedRequest extends FastifyRequest {
  seq?: number;
  commitThenDrop?: boolean;
  commitThenStatus?: number;
  stallBodyMs?: number;
  delayAfterMs?: number;
  dropped?: boolean;
  fault?: string;
}

function jsonObject(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== "object" || Array.isArray(body)) throw new HttpError(400, "the request body must be a JSON object");
  return body as Record<string, unknown>;
}

function isControl(req: FastifyRequest): boolean {
  return req.url.startsWith("/_emulator");
}

function routeOf(req: FastifyRequest): string {
  return `${req.method} ${req.routeOptions.url ?? req.url.split("?")[0]}`;
}

function isLoopback(address: string | undefined): boolean {
  return !!address && (address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127."));
}

function drop(req: FastifyRequest, reply: FastifyReply): void {
  (req as FaultedRequest).dropped = true;
  reply.hijack();
  req.raw.socket.destroy();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `YYYY-MM-DD HH:MM:SS.mmm +0000 UTC`, the shape of throughput timestamps (spec 2.1). */
function metricTime(): string {
  return new Date().toISOString().replace("T", " ").replace("Z", " +0000 UTC");
}
