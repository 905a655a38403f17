/**
 * Test controls under /_emulator, answered only to loopback clients: reset, read state and the
 * request log, inject faults, latency and rate limits, and create what only publishing messages
 * would create in the real service (flow control keys, queues) or what a console would (accounts).
 */
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { MESSAGING_REGIONS, SEARCH_REGIONS } from "pulumi-mgmt/internal/api/schemas";
import { FaultRule } from "../controls";
import { HttpError, parseOr400, type EmulatorState, type Params } from "../http";
import type { Account, SeedUser } from "../state";

const limits = z.object({
  parallelism: z.number().int().min(1).optional(),
  rate: z.number().int().min(1).optional(),
  period: z.number().int().min(1).optional(),
});

/**
 * What the test controls drive. The Emulator implements it; declared here so that these routes
 * do not import the server that installs them.
 */
export interface TestControlsHost extends EmulatorState {
  persist(): void;
  reset(): void;
  addAccount(username: string, region: (typeof MESSAGING_REGIONS)[number], paid?: boolean): Account;
  users(): SeedUser[];
}

export async function installTestControls(r: FastifyInstance, emu: TestControlsHost): Promise<void> {
  const c = emu.controls;
  r.addHook("onRequest", async (req, reply) => {
    if (!isLoopback(req.socket.remoteAddress))
      return reply.status(403).send({ error: "test controls answer loopback clients only" });
  });
  const parse = <T extends z.ZodType>(schema: T, body: unknown): z.output<T> => parseOr400(schema, body ?? {});
  const accountById = (id: string) => {
    const account = emu.data.accounts.find((a) => a.record.id === id);
    if (!account) throw new HttpError(404, `messaging account ${id} not found`);
    return account;
  };
  const done = (persist = true) => {
    if (persist) emu.persist();
    return { ok: true };
  };

  r.post("/reset", async () => {
    emu.reset();
    return done();
  });
  r.get("/users", async () => emu.users());
  r.get("/state", async () => emu.data);
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
  r.post("/flow-control-report", async (req) => {
    c.flowControlReport = parse(z.object({ report: z.enum(["full", "documented"]) }), req.body).report;
    return done(false);
  });
  r.post("/placement", async (req) => {
    const { from, to } = parse(
      z.object({ from: z.enum(SEARCH_REGIONS), to: z.enum(SEARCH_REGIONS).nullable() }),
      req.body,
    );
    if (to === null) delete emu.placement[from];
    else emu.placement[from] = to;
    return done(false);
  });
  r.post("/keys", async (req) => {
    const b = parse(
      z.object({
        accountId: z.string(),
        key: z.string().min(1),
        waitListSize: z.number().int().min(0).default(0),
        paused: z.boolean().default(false),
        carried: limits.optional(),
      }),
      req.body,
    );
    const account = accountById(b.accountId);
    const existing = account.keys[b.key];
    account.keys[b.key] = {
      ...existing,
      waitListSize: b.waitListSize,
      paused: b.paused,
      rateResets: existing?.rateResets ?? 0,
      carried: b.carried ?? existing?.carried,
    };
    return done();
  });
  r.post("/queues", async (req) => {
    const b = parse(
      z.object({
        accountId: z.string(),
        name: z.string().min(1),
        paused: z.boolean().default(true),
        parallelism: z.number().int().min(1).optional(),
      }),
      req.body,
    );
    const account = accountById(b.accountId);
    const existing = account.queues[b.name];
    account.queues[b.name] = {
      ...existing,
      paused: b.paused,
      resumes: existing?.resumes ?? 0,
      parallelism: b.parallelism ?? existing?.parallelism,
      createdAt: existing?.createdAt ?? Date.now(),
    };
    return done();
  });
  r.post("/accounts", async (req) => {
    const b = parse(
      z.object({
        username: z.string(),
        region: z.enum(MESSAGING_REGIONS),
        type: z.enum(["free", "paid"]).default("free"),
      }),
      req.body,
    );
    const account = emu.addAccount(b.username, b.region, b.type === "paid");
    emu.persist();
    return { id: account.record.id, token: account.record.token };
  });
  r.post("/accounts/:id/delete", async (req) => {
    accountById((req.params as Params).id).record.deletion_time = Math.floor(Date.now() / 1000);
    return done();
  });
}

function isLoopback(address: string | undefined): boolean {
  return !!address && (address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127."));
}
