/**
 * A job's lost outcome (fleet/jobOutcome.ts): a job this process's pool locks and none of its
 * tasks runs, seen at two looks LOST_AFTER_MS apart; never a job a task runs, nor one seen once
 * between its task's end and its record.
 */
import { LOST_AFTER_MS, LostOutcomes } from "../../fleet/jobOutcome";

test("a locked job no task runs is lost only when still so LOST_AFTER_MS after first seen", () => {
  const lost = new LostOutcomes();
  expect(lost.look(["7", "8"], new Set(["8"]), 0)).toEqual([]);
  expect(lost.look(["7", "8"], new Set(["8"]), LOST_AFTER_MS - 1)).toEqual([]);
  expect(lost.look(["7", "8"], new Set(["8"]), LOST_AFTER_MS)).toEqual(["7"]);
});

test("a job recorded meanwhile, or run by a task again, starts over", () => {
  const lost = new LostOutcomes();
  lost.look(["7", "9"], new Set(), 0);
  expect(lost.look(["9"], new Set(), 1000)).toEqual([]); // 7 recorded
  expect(lost.look(["7", "9"], new Set(["9"]), 2000)).toEqual([]); // 7 locked again: seen anew; 9 runs
  expect(lost.look(["7", "9"], new Set(), LOST_AFTER_MS + 1000)).toEqual([]);
  expect(lost.look(["7", "9"], new Set(), LOST_AFTER_MS + 2000)).toEqual(["7"]);
  expect(lost.look(["7", "9"], new Set(), 2 * LOST_AFTER_MS + 2000)).toEqual(["7", "9"]);
});
