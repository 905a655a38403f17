/**
 * The rule of provider/processState.ts: what a process was told or did during a run is shared by
 * every copy of the package in it. Two copies are made here by loading the modules twice.
 */
type Takeovers = typeof import("../../provider/resources/takeovers");
type Claims = typeof import("../../provider/resources/claims");
type SharedList = typeof import("../../provider/resources/sharedList");
type Runtime = typeof import("../../provider/runtime");

function twoCopies<T>(path: string): [T, T] {
  const copies: T[] = [];
  for (let i = 0; i < 2; i++) jest.isolateModules(() => copies.push(require(path) as T));
  expect(copies[0]).not.toBe(copies[1]);
  return [copies[0], copies[1]];
}

test("a takeover one copy recorded is known to the other (a delete later in the run releases the object)", () => {
  const [a, b] = twoCopies<Takeovers>("../../provider/resources/takeovers");
  a.recordTakeover({ kind: "search index", id: "idx-shared-1" });
  expect(b.takenOverThisRun({ kind: "search index", id: "idx-shared-1" })).toBe(true);
  expect(b.takenOverThisRun({ kind: "search index", id: "idx-other" })).toBe(false);
});

test("an object claimed through one copy is refused to another resource through the other", () => {
  const [a, b] = twoCopies<Claims>("../../provider/resources/claims");
  expect(a.claim("MessagingBudget", "accountId", "acct-shared", "first", "the budget")).toBeUndefined();
  expect(b.claim("MessagingBudget", "accountId", "acct-shared", "second", "the budget")?.reason).toMatch(
    /"second" and MessagingBudget "first" both set the budget/,
  );
});

test("a list one copy fetched serves the other, and a write applied through one reaches both", async () => {
  const [a, b] = twoCopies<SharedList>("../../provider/resources/sharedList");
  const fetch = jest.fn(async () => [{ id: 1 }]);
  await a.sharedList("k-shared", fetch);
  await b.applyToSharedList<{ id: number }>("k-shared", (items) => items.push({ id: 2 }));
  expect(await b.sharedList("k-shared", fetch)).toEqual([{ id: 1 }, { id: 2 }]);
  expect(fetch).toHaveBeenCalledTimes(1);
});

test("the configuration one copy was given is the other's", async () => {
  const [a, b] = twoCopies<Runtime>("../../provider/runtime");
  await a.configure({ config: new Map([["mgmt:baseUrl", "http://127.0.0.1:9/shared"]]) } as never);
  expect(b.apiClient().settings.baseUrl).toBe("http://127.0.0.1:9/shared");
});
