/** The tenant list's check (fleet/tenant.ts): one line, every problem, each naming where, the tenant and the field. */
import { checkTenants } from "../../fleet/tenant";
import { UserError } from "../../provider/userError";

const problems = (raw: unknown): string => {
  try {
    checkTenants(raw, "t.json");
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return (err as Error).message;
  }
  throw new Error("expected the list to be refused");
};

test("a good list: defaults filled in, the pin kept as given", () => {
  expect(checkTenants([{ id: "a", flowControlKey: "k", pin: { rate: 5 } }], "t.json")).toEqual([
    {
      id: "a",
      plan: "free",
      searchRegion: "eu-west-1",
      messagingRegion: "eu-central-1",
      flowControlKey: "k",
      pin: { rate: 5 },
    },
  ]);
});

test("a pin is checked at submit as FlowControlKey checks it, naming the tenant and the field", () => {
  expect(problems([{ id: "a", flowControlKey: "k", pin: { parallelism: -5, foo: 1 } }]).split("; ")).toEqual([
    "t.json[0] (a): pin.parallelism: must be at least 1",
    "t.json[0] (a): pin: may only have parallelism, rate and period",
  ]);
  expect(problems([{ id: "a", flowControlKey: "k", pin: { parallelism: -5 } }])).toBe(
    "t.json[0] (a): pin.parallelism: must be at least 1",
  );
  expect(problems([{ id: "a", flowControlKey: "k", pin: { period: 60 } }])).toBe(
    "t.json[0] (a): pin: give parallelism, rate (per period seconds) or both; leave pin out to pin nothing; " +
      "t.json[0] (a): pin.period: needs rate: period is the length in seconds of the window rate counts in",
  );
});

test("every problem at once, on one line, naming the tenant and the field", () => {
  const message = problems([
    { id: "ok", flowControlKey: "k" },
    { id: "Bad Id", flowControlKey: "k" },
    { id: "x", flowControlKey: "", plan: "gold" },
    7,
    { id: "ok", flowControlKey: "k" },
  ]);
  expect(message).not.toContain("\n");
  expect(message.split("; ")).toEqual([
    `t.json[1] (Bad Id): id: must be 1 to 40 lowercase letters, digits and '-', got "Bad Id"`,
    `t.json[2] (x): plan: must be one of free, payg, got "gold"`,
    `t.json[2] (x): flowControlKey: must be a non-empty string`,
    `t.json[3]: must be an object`,
    `t.json[4] (ok): id: "ok" is listed twice`,
  ]);
});

test("a name listed twice, a missing id, a list that is not one", () => {
  expect(
    problems([
      { id: "a", flowControlKey: "k" },
      { id: "a", flowControlKey: "k" },
    ]),
  ).toBe(`t.json[1] (a): id: "a" is listed twice`);
  // With the list's other problems, in one go (zod alone skips a list's refinement once an entry fails).
  expect(
    problems([
      { id: "a", flowControlKey: "k" },
      { id: "b", flowControlKey: "k", plan: "gold" },
      { id: "a", flowControlKey: "k" },
    ]),
  ).toBe(`t.json[1] (b): plan: must be one of free, payg, got "gold"; t.json[2] (a): id: "a" is listed twice`);
  expect(problems([{ flowControlKey: "k" }])).toBe(
    `t.json[0]: id: must be 1 to 40 lowercase letters, digits and '-', got undefined`,
  );
  expect(problems({ tenants: [] })).toBe("t.json: must be a JSON array of tenants");
  expect(problems([{ id: "a", flowControlKey: "k", pin: 3 }])).toBe(
    "t.json[0] (a): pin: must be an object of parallelism, rate and period",
  );
});
