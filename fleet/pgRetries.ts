/**
 * graphile-worker retries its own queries (a finished job's completion among them) only on the
 * PostgreSQL errors of its RETRYABLE_ERROR_CODES table. A restart of PostgreSQL ends every session
 * with 57P01 (admin_shutdown): the completion of a job that finished at that moment was rejected
 * and, never awaited by graphile-worker, ended the worker process with an unhandled rejection
 * (seen in test/e2e/fleet.test.ts's restart). Its job then stayed locked by a pool that looked
 * alive. A restarted or reachable-again server takes the retry, as graphile-worker already does
 * for 57P03 (the server starting): these codes are added to the library's own table, once, here.
 */
import { RETRYABLE_ERROR_CODES } from "graphile-worker/dist/lib";

/** Session ended by the server (shutdown, crash) or the connection lost: worth a new connection. */
export const CONNECTION_LOSS_CODES = ["57P01", "57P02", "08000", "08003", "08006", "ECONNREFUSED", "ECONNRESET"];

for (const code of CONNECTION_LOSS_CODES) RETRYABLE_ERROR_CODES[code] ??= { minDelay: 1000, maxDelay: 30_000 };
