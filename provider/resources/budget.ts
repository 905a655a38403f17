/**
 * A monthly spending limit of one object (a messaging account, a database), as code: the one
 * contract MessagingBudget and DatabaseBudget share.
 *
 * Create and update set the budget; delete gives the object back the budget it had before this
 * resource took it over (`previousBudget`), only while the object still has the stack's value.
 * Reads come from the object list, shared per provider process so that refreshing many budgets
 * lists once, not once per budget. An object has one budget, so one stack may declare one budget
 * resource per object (checked in `check`, so a preview already fails). A new resource's `check`
 * reads the budget as found (before.ts), which recovery after a killed run relies on.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { MgmtClient } from "../api/client";
import { ApiError } from "../api/errors";
import { apiClient } from "../runtime";
import { UserError } from "../userError";
import { Absent, isRecovered, withBefore } from "./before";
import { claim } from "./claims";
import { confirmGone, goneIfNotFound, managementIdentity } from "./identity";
import { applyToSharedList, sharedList } from "./sharedList";
import { recordTakeover, takenOverThisRun, type ObjectRef } from "./takeovers";
import { checkWithSettings, isUnknown, readInputs } from "./validation";

/** What differs between the objects a budget belongs to. */
export interface BudgetTarget<K extends string, R> {
  /** The resource type, as messages name it: "MessagingBudget". */
  kind: string;
  /** The input naming the object: "accountId". */
  idField: K;
  /** The object, as messages name it: "messaging account". */
  what: string;
  /** Where to look the object's id up, for the not-found advice: "getMessagingAccounts()". */
  listedBy: string;
  takeover: (id: string) => ObjectRef;
  list(client: MgmtClient): Promise<R[]>;
  idOf(record: R): string;
  /** False for an object the service keeps but marks deleted. */
  isLive(record: R): boolean;
  budgetOf(record: R): number | undefined;
  setBudget(client: MgmtClient, id: string, value: number): Promise<void>;
  /** The object's fields the resource reports besides the budget (region, state...). */
  details(record: R): Record<string, unknown>;
}

interface BudgetFields {
  budget: number;
  /** The Pulumi resource name, so that a conflict can name both resources. */
  resourceName?: string;
  /** The budget as `check` found it before this stack acted (before.ts). */
  before?: { budget: number };
}

/** The inputs: the object's id under `idField`, and the budget. */
export type BudgetInputs<K extends string> = BudgetFields & Record<K, string>;

/** The inputs' schema; `budget` is the object's rule (messaging: 0 or 20 to 10000; databases: 0 to 10000). */
export function budgetInputs<K extends string>(idField: K, what: string, budget: z.ZodNumber | z.ZodType<number>): z.ZodObject & z.ZodType<BudgetInputs<K>> {
  return z.object({
    [idField]: z.string({ error: "must be a string" }).min(1, `must not be empty (give a ${what} id)`),
    budget,
    resourceName: z.string().optional(),
    before: z.object({ budget: z.number() }).optional(),
  }) as unknown as z.ZodObject & z.ZodType<BudgetInputs<K>>;
}

export type BudgetOutputs<K extends string> = BudgetInputs<K> & {
  previousBudget: number;
  /**
   * The budget this stack last set (refresh records the object's budget in `budget`, never
   * here): destroy restores `previousBudget` only while the object still has this value.
   */
  budgetSet: number;
  /** The identity that manages the budget (identity.ts); absent only until recovery's refresh. */
  managedBy?: string;
};

export function budgetProvider<K extends string, R, O extends BudgetOutputs<K>>(target: BudgetTarget<K, R>, Inputs: ReturnType<typeof budgetInputs<K>>): pulumi.dynamic.ResourceProvider<BudgetInputs<K>, O> {
  const listKey = `${target.what}s`;
  const idIn = (inputs: Record<string, unknown>) => inputs[target.idField] as string;
  const label = (id: string) => `the budget of ${target.what} "${id}"`;
  const notFound = (id: string) => `${target.what} "${id}" not found for this user: check ${target.idField} (${target.listedBy} lists them)`;

  async function live(client: MgmtClient, id: string): Promise<R | undefined> {
    const found = (await sharedList(listKey, () => target.list(client))).find((r) => target.idOf(r) === id);
    return found && target.isLive(found) ? found : undefined;
  }
  async function setBudget(client: MgmtClient, id: string, value: number): Promise<void> {
    await target.setBudget(client, id, value);
    await applyToSharedList<R>(listKey, (all) => {
      const found = all.find((r) => target.idOf(r) === id) as { budget?: number } | undefined;
      if (found) found.budget = value;
    });
  }
  function outputsOf(record: R, budgetValue: number, previousBudget: number, budgetSet: number, managedBy: string): O {
    return { ...target.details(record), [target.idField]: target.idOf(record), budget: budgetValue, previousBudget, budgetSet, managedBy } as unknown as O;
  }
  const current = (record: R) => target.budgetOf(record) ?? 0;

  return {
    async check(olds, news) {
      const result = checkWithSettings(Inputs, news, ["management"]);
      const id: unknown = news[target.idField];
      const conflict = claim(target.kind, target.idField, id, news.resourceName, `the budget of ${target.what} "${id}": a ${target.what} has one budget`);
      if (conflict) return { inputs: result.inputs, failures: [...(result.failures ?? []), conflict] };
      return withBefore(result, olds, async () => {
        if (isUnknown(id)) return undefined;
        const record = await live(apiClient(), String(id));
        return record ? { budget: current(record) } : new Absent(target.idField, notFound(String(id)));
      });
    },

    async diff(_id, olds: O, news) {
      const replaces = idIn(olds) !== idIn(news) ? [target.idField] : [];
      return { changes: replaces.length > 0 || olds.budget !== news.budget, replaces };
    },

    async create(news) {
      const parsed = Inputs.parse(news) as BudgetInputs<K>;
      const { before, budget: wanted } = parsed as BudgetFields;
      const id = idIn(parsed);
      const client = apiClient();
      const record = await live(client, id);
      if (!record) throw new UserError(notFound(id));
      const previous = before?.budget ?? current(record);
      recordTakeover(target.takeover(id));
      if (previous !== wanted) await setBudget(client, id, wanted);
      return { id, outs: outputsOf(record, wanted, previous, wanted, managementIdentity(client.settings)) };
    },

    async read(id, stored) {
      const props = stored!; // the engine always passes what it recorded
      const client = apiClient();
      const record = await live(client, id);
      if (!record) {
        confirmGone(label(id), props.managedBy, managementIdentity(client.settings), client.settings);
        return {};
      }
      const now = current(record);
      // Imported by recovery (before.ts): the interrupted create set the budget only if the declared value is in place.
      const [previous, set] = isRecovered(props) ? [props.before!.budget, now === props.budget ? props.budget : props.before!.budget] : [props.previousBudget, props.budgetSet];
      return { id, props: outputsOf(record, now, previous, set, managementIdentity(client.settings)), inputs: readInputs<O>({ [target.idField]: id, budget: now } as Partial<O>) };
    },

    async update(id, olds: O, news) {
      const client = apiClient();
      if (olds.budget !== news.budget) {
        await setBudget(client, id, news.budget).catch((err) => {
          if (goneIfNotFound(err, label(id), olds.managedBy, managementIdentity(client.settings), client.settings)) throw err.about(notFound(id));
          throw err instanceof ApiError ? err.about(`${label(id)} could not be set to ${news.budget}`) : err;
        });
      }
      return { outs: { ...olds, budget: news.budget, budgetSet: news.budget, managedBy: managementIdentity(client.settings) } };
    },

    async delete(id, props: O) {
      const client = apiClient();
      if (props.budgetSet === props.previousBudget) return; // this stack changed nothing
      // Renamed in code (or replaced): the resource that took the budget over in this run keeps it.
      if (takenOverThisRun(target.takeover(id))) return;
      // Restored only while the object still has the stack's value: a budget someone set since
      // (finance raised it, another stack took it) is theirs. One that is gone has no budget
      // left to restore; one we cannot see is not gone.
      const record = await live(client, id);
      if (!record) return confirmGone(label(id), props.managedBy, managementIdentity(client.settings), client.settings);
      if (current(record) !== props.budgetSet) return;
      await setBudget(client, id, props.previousBudget).catch((err) => {
        if (!goneIfNotFound(err, label(id), props.managedBy, managementIdentity(client.settings), client.settings)) throw err;
      });
    },
  };
}
