/**
 * The one line `mgmt-fleet` prints when a command fails: the error's message, or for a fleet
 * database it cannot reach or log in to, the reason and where to fix the URL.
 */

/**
 * Errors of reaching or logging in to the fleet's PostgreSQL (node's socket codes, PostgreSQL's
 * SQLSTATEs for a refused login or a missing database): the user's fix is the URL. Their messages
 * name the host and user, never the password.
 */
const DATABASE_UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "ECONNRESET",
  "EHOSTUNREACH",
  "28P01",
  "28000",
  "3D000",
]);

type Failure = Error & { code?: string; errors?: unknown[] };

export function failureLine(err: Failure): string {
  // A host name of two addresses (localhost: ::1 and 127.0.0.1) fails with an AggregateError,
  // whose own message is empty: its attempts say why.
  const attempts = (err.errors ?? []).map((e) => (e instanceof Error ? e.message : String(e)));
  const why = err.message || [...new Set(attempts)].join("; ") || err.code || err.name;
  // node-postgres's own error for a server that closed the connection has no code.
  const unreachable =
    (err.code !== undefined && DATABASE_UNREACHABLE.has(err.code)) || /^Connection terminated\b/.test(err.message);
  return unreachable ? `the fleet database: ${why}; check --database or MGMT_FLEET_DATABASE_URL` : why;
}
