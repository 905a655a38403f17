/**
 * The CLI-start bench's arithmetic (bench/cliStart.ts): Go's init trace summed by package, and the
 * median of paired differences it reports as a saving.
 */
import { paired, parseInitTrace } from "../../bench/cliStart";
import { median } from "../../bench/stat";

const TRACE = `init internal/bytealg @0.004 ms, 0.002 ms clock, 0 bytes, 0 allocs
init github.com/nbutton23/zxcvbn-go/data @12 ms, 60.5 ms clock, 21000000 bytes, 3000 allocs
pulumi v3.255.0
init github.com/ccojocar/zxcvbn-go/data @80 ms, 70 ms clock, 17000000 bytes, 2000 allocs
init github.com/mattn/go-runewidth @160 ms, 50 ms clock, 100 bytes, 2 allocs
init github.com/pulumi/pulumi/pkg/v3/cmd @215 ms, 9.498 ms clock, 100 bytes, 2 allocs
`;

test("an init trace sums every package's clock time, and the matching packages' apart", () => {
  const t = parseInitTrace(TRACE, { zxcvbn: /zxcvbn/, runewidth: /go-runewidth/, none: /absent/ });
  expect(t.all).toBeCloseTo(190, 6);
  expect(t.matching).toEqual({ zxcvbn: 130.5, runewidth: 50, none: 0 });
  expect(t.matchingBytes).toEqual({ zxcvbn: 38_000_000, runewidth: 100, none: 0 });
});

test("a saving is the median of the rounds' differences, not the difference of the medians", () => {
  // Medians 3 and 2 (difference 1); the rounds' differences 0, 0, 3: median 0.
  expect(paired([1, 3, 5], [1, 3, 2])).toEqual({ a: 3, b: 2, diff: 0, lower: 1 });
  expect(paired([1, 2, 3, 4], [0, 0, 0, 0])).toEqual({ a: 2.5, b: 0, diff: 2.5, lower: 4 });
});

test("a median of an even count is the mean of the middle two, of any order", () => {
  expect(median([4, 1, 3, 2])).toBe(2.5);
  expect(median([5, 1, 3])).toBe(3);
});
