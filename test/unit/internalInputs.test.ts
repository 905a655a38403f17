/**
 * A preview's `[diff: ...]` is computed by the engine from old and new inputs (the dynamic
 * provider host passes no detailed diff), so the inputs a provider adds for itself (`before`,
 * `resourceName`) must come out of `check` exactly as the stack recorded them: a changed
 * declared field is then the only one a diff can name.
 */
import { withBefore } from "../../provider/resources/before";

const read = async () => ({ budget: 300 });

test("a new resource gets `before` from its read", async () => {
  const checked = await withBefore({ inputs: { accountId: "a", budget: 500, resourceName: "cap" } }, {}, read);
  expect(checked.inputs).toEqual({ accountId: "a", budget: 500, resourceName: "cap", before: { budget: 300 } });
});

test("an existing resource keeps the recorded `before` and `resourceName`, and gets none it did not record", async () => {
  const recorded = { accountId: "a", budget: 500, resourceName: "cap", before: { budget: 300 } };
  const changed = await withBefore({ inputs: { accountId: "a", budget: 800, resourceName: "cap" } }, recorded, read);
  expect(changed.inputs).toEqual({ ...recorded, budget: 800 });
  // After a refresh the recorded inputs are the object's id and budget only (budget.ts `read`).
  const refreshed = await withBefore(
    { inputs: { accountId: "a", budget: 800, resourceName: "cap" } },
    { accountId: "a", budget: 1200 },
    read,
  );
  expect(refreshed.inputs).toEqual({ accountId: "a", budget: 800 });
});
