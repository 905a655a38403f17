/**
 * The suite's file order (test/support/sequencer.js): played out on Jest's two workers, no two
 * of the files that mostly wait run at once, whether the times come from Jest's cache of an
 * earlier run or, in a fresh clone (no cache), from the sequencer's own table.
 */
import path from "node:path";
import Sequencer from "@jest/test-sequencer";

const WaitingApart = require("../support/sequencer.js");

const ROOT = path.resolve(__dirname, "../..");
const WAITING = ["fleet", "tenants", "faultMatrix", "compat"];
const file = (name: string) =>
  path.join(
    ROOT,
    name === "faultMatrix" ? "test/reliability" : name === "compat" ? "test/matrix" : "test/e2e",
    `${name}.test.ts`,
  );

/** Jest's own order would start fleet and tenants together (the two longest). */
const SECONDS: Record<string, number> = {
  fleet: 480,
  tenants: 370,
  faultMatrix: 280,
  compat: 170,
  objectSafety: 200,
  provenance: 190,
  rotation: 160,
  messagingControls: 150,
  firstHour: 150,
  examples: 140,
  searchIndex: 140,
  restOfService: 130,
  messagingBudget: 120,
  hostileInput: 100,
};

/** Jest's own sequencer's lookups in its cache (private in its types). */
const jestOwn = Sequencer.prototype as unknown as {
  time(t: { path: string }): number | undefined;
  hasFailed(t: { path: string }): boolean;
};

function order(times: "cached" | "none"): string[] {
  const time = jest
    .spyOn(jestOwn, "time")
    .mockImplementation((t) => (times === "cached" ? SECONDS[path.basename(t.path, ".test.ts")] * 1000 : undefined));
  const failed = jest.spyOn(jestOwn, "hasFailed").mockReturnValue(false);
  try {
    const tests = Object.keys(SECONDS).map((name) => ({
      path: file(name),
      // Jest's own order asks for sizes when it has no times; all equal here.
      context: { hasteFS: { getSize: () => 1000 } },
    }));
    return new WaitingApart().sort(tests).map((t: { path: string }) => path.basename(t.path, ".test.ts"));
  } finally {
    time.mockRestore();
    failed.mockRestore();
  }
}

/** Each file's [start, end] when two workers take the files in `names`' order, each the next when free. */
function playOut(names: string[]): Map<string, [number, number]> {
  const free = [0, 0];
  const spans = new Map<string, [number, number]>();
  for (const name of names) {
    const w = free[0] <= free[1] ? 0 : 1;
    spans.set(name, [free[w], (free[w] += SECONDS[name])]);
  }
  return spans;
}

test.each(["cached", "none"] as const)("with times %s, no two waiting files overlap on two workers", (times) => {
  const names = order(times);
  expect([...names].sort()).toEqual(Object.keys(SECONDS).sort());
  const spans = playOut(names);
  const overlaps = [];
  for (const a of WAITING)
    for (const b of WAITING) {
      const [s1, e1] = spans.get(a)!;
      const [s2, e2] = spans.get(b)!;
      if (a < b && s1 < e2 && s2 < e1) overlaps.push(`${a} + ${b}`);
    }
  expect(overlaps).toEqual([]);
  // Still the longest first, as Jest orders them.
  expect(names[0]).toBe("fleet");
});
