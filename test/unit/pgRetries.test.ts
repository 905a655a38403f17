/**
 * A fleet worker outlives a PostgreSQL restart: graphile-worker's retried queries (a finished
 * job's completion among them) retry the session-ended error a restart gives (57P01) on a new
 * connection instead of rejecting, which ended the worker (fleet/pgRetries.ts).
 */
import { makeEnhancedWithPgClient } from "graphile-worker/dist/lib";
import type { WithPgClient } from "graphile-worker";
import "../../fleet/queue";

test("a query ended by the server's restart (57P01) is retried on a new connection, not rejected", async () => {
  let calls = 0;
  const withPgClient = (async <T>(fn: (client: never) => Promise<T>) => {
    calls++;
    if (calls === 1)
      throw Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
    return fn(undefined as never);
  }) as WithPgClient;
  const enhanced = makeEnhancedWithPgClient(withPgClient);
  await expect(enhanced.withRetries(async () => "completed")).resolves.toBe("completed");
  expect(calls).toBe(2);
}, 20_000);
