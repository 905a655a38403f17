/**
 * The order Jest hands test files to its workers: Jest's own (failed first, then the longest,
 * by its times of the last run here or else by the ones below), except that no two of the files
 * that spend most of their time waiting run at once. Those files wait out timeouts, Retry-Afters, a dead
 * worker's confirmation and restarts of PostgreSQL, on well under one core; run side by side
 * they left the machine's two cores about a third idle for six minutes, where beside an
 * engine-heavy file each lends its idle core to the other (docs/testing.md).
 *
 * Jest gives the next file in this order to whichever worker is free first, so the order is
 * made by playing that out with each file's expected time.
 */
const path = require("node:path");
const Sequencer = require("@jest/test-sequencer").default;
const { maxWorkers } = require("../../jest.config.js");

/**
 * Each file's seconds in the last full run measured here (`.ci/run` in a fresh clone at
 * `091b1b1`), for a machine whose Jest has no time of its own (Jest keys its cache by the
 * checkout's path, so every fresh clone starts without one); `waits` marks the files that mostly
 * wait. Only the order depends on these figures.
 */
const MEASURED = {
  "test/e2e/fleet.test.ts": { seconds: 488, waits: true },
  "test/e2e/tenants.test.ts": { seconds: 376, waits: true },
  "test/reliability/faultMatrix.test.ts": { seconds: 280, waits: true },
  "test/e2e/objectSafety.test.ts": { seconds: 197 },
  "test/e2e/provenance.test.ts": { seconds: 192 },
  "test/matrix/compat.test.ts": { seconds: 168, waits: true },
  "test/e2e/rotation.test.ts": { seconds: 158 },
  "test/e2e/messagingControls.test.ts": { seconds: 154 },
  "test/e2e/firstHour.test.ts": { seconds: 147 },
  "test/e2e/examples.test.ts": { seconds: 138 },
  "test/e2e/searchIndex.test.ts": { seconds: 137 },
  "test/e2e/restOfService.test.ts": { seconds: 127 },
  "test/e2e/messagingBudget.test.ts": { seconds: 126 },
  "test/e2e/messagingDesiredState.test.ts": { seconds: 115 },
  "test/reliability/hostileInput.test.ts": { seconds: 102 },
  "test/reliability/interruptAndLoad.test.ts": { seconds: 98 },
  "test/e2e/mainJob.test.ts": { seconds: 86 },
  "test/e2e/pluginProofs.test.ts": { seconds: 86 },
  "test/e2e/promises.test.ts": { seconds: 84 },
  "test/e2e/template.test.ts": { seconds: 77 },
  "test/e2e/pluginImport.test.ts": { seconds: 51 },
  "test/reliability/credentials.test.ts": { seconds: 47 },
  "test/e2e/tenantRuns.test.ts": { seconds: 44 },
  "test/e2e/pluginConstruct.test.ts": { seconds: 36 },
  "test/e2e/providerForm.test.ts": { seconds: 35 },
  "test/e2e/automationHelper.test.ts": { seconds: 30 },
  "test/e2e/engine-smoke.test.ts": { seconds: 26 },
  "test/api/contract.test.ts": { seconds: 23 },
  "test/unit/help.test.ts": { seconds: 22 },
  "test/e2e/pluginMove.test.ts": { seconds: 21 },
};
/** Each file not listed took less than 20 s; the median of those is about 5 s. */
const UNLISTED_SECONDS = 5;
const ROOT = path.resolve(__dirname, "../..");
const measured = (test) => MEASURED[path.relative(ROOT, test.path).split(path.sep).join("/")];
const waits = (test) => measured(test)?.waits === true;

class WaitingApart extends Sequencer {
  sort(tests) {
    // Jest's order, by the times it has or else these: failed first, then the longest.
    const expected = (t) => (t.duration > 0 ? t.duration : (measured(t)?.seconds ?? UNLISTED_SECONDS) * 1000);
    const failed = (t) => (this.hasFailed(t) ? 1 : 0);
    const queue = super.sort(tests).sort((a, b) => failed(b) - failed(a) || expected(b) - expected(a));

    const workers = Array.from({ length: typeof maxWorkers === "number" ? maxWorkers : 2 }, () => ({
      freeAt: 0,
      waiting: false,
    }));
    const order = [];
    while (queue.length > 0) {
      const worker = workers.reduce((a, b) => (b.freeAt < a.freeAt ? b : a));
      const otherWaits = workers.some((w) => w !== worker && w.waiting && w.freeAt > worker.freeAt);
      const firstBusy = queue.findIndex((t) => !waits(t));
      const pick = otherWaits && firstBusy >= 0 ? firstBusy : 0;
      const [test] = queue.splice(pick, 1);
      order.push(test);
      worker.freeAt += expected(test);
      worker.waiting = waits(test);
    }
    return order;
  }
}

module.exports = WaitingApart;
