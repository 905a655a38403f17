/**
 * A worker's log says each event once: graphile-worker's own lines for what the fleet says itself
 * (a job's failure, a lost connection to the database) are not shown (fleet/queue.ts).
 * Its other errors are, on one line.
 */
import { quiet } from "../../fleet/queue";

function shown(level: "error" | "warn" | "info", message: string): string {
  const written: string[] = [];
  const write = jest.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    quiet.scope({})[level](message);
  } finally {
    write.mockRestore();
  }
  return written.join("");
}

const saved = process.env.MGMT_FLEET_DEBUG;
beforeAll(() => delete process.env.MGMT_FLEET_DEBUG);
afterAll(() => {
  if (saved !== undefined) process.env.MGMT_FLEET_DEBUG = saved;
});

test.each([
  // Seen when PostgreSQL restarted under an idle worker: ten lines for one event.
  "PostgreSQL active client generated error: terminating connection due to administrator command",
  "PostgreSQL idle client generated error: terminating connection due to administrator command",
  "Error with notify listener (trying again in 133ms): terminating connection due to administrator command",
  "Error occurred attempting to UNLISTEN: Error: Client has encountered a connection error and is not queryable",
  "Error with notify listener (trying again in 327ms): the database system is starting up",
  "Error occurred fetching jobs; will try again on next poll interval. Error: Error: connect ECONNREFUSED 127.0.0.1:5432",
  // A failed job: the worker's own line for it has the reason.
  "Failed task 12 (tenant-converge, 7812.00ms, attempt 1 of 5) with error 'GET /v2/search failed: 503':\n  at x (y.js:1:1)",
])("not shown: %s", (message) => {
  expect(shown("error", message)).toBe("");
});

test("a lost job outcome is shown, though its cause is a lost connection: the fleet does not say it itself", () => {
  expect(
    shown("error", "Failed to release job '12' after failure; committing seppuku\nConnection terminated unexpectedly"),
  ).toBe("[graphile-worker] Failed to release job '12' after failure; committing seppuku\n");
  expect(shown("error", "Failed to complete jobs '12': Connection terminated unexpectedly")).toBe(
    "[graphile-worker] Failed to complete jobs '12': Connection terminated unexpectedly\n",
  );
});

test("its other errors are shown, first line only; nothing below error", () => {
  expect(shown("error", "Failed to reset locked; we'll try again in 100ms\n  at stack")).toBe(
    "[graphile-worker] Failed to reset locked; we'll try again in 100ms\n",
  );
  expect(shown("info", "Worker connected and looking for jobs...")).toBe("");
});
