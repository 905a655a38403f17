/**
 * The order Jest hands test files to its workers: Jest's own (failed first, then the longest,
 * by the last run's times or else by file size), except that no two of the files that spend
 * most of their time waiting run at once. Those files wait out timeouts, Retry-Afters, a dead
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

/** Files that mostly wait (measured alone: fleet uses 0.76 of a core over its run). */
const WAITING = [
  "test/e2e/fleet.test.ts",
  "test/e2e/tenants.test.ts",
  "test/reliability/faultMatrix.test.ts",
  "test/matrix/compat.test.ts",
];
const ROOT = path.resolve(__dirname, "../..");
const waits = (test) => WAITING.includes(path.relative(ROOT, test.path).split(path.sep).join("/"));

class WaitingApart extends Sequencer {
  sort(tests) {
    const queue = super.sort(tests);
    // A file with no time from an earlier run: its size stands in, scaled to the others' rate.
    const size = (t) => t.context.hasteFS.getSize(t.path) ?? 0;
    const timed = queue.filter((t) => t.duration > 0);
    const sum = (list, of) => list.reduce((total, t) => total + of(t), 0);
    const perByte = timed.length > 0 ? sum(timed, (t) => t.duration) / Math.max(1, sum(timed, size)) : 1;
    const expected = (t) => (t.duration > 0 ? t.duration : size(t) * perByte);

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
