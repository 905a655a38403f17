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
import { ApiError, isNotFound } from "../api/errors";
import { apiClient } from "../runtime";
import { UserError } from "../userError";
import { Absent, isRecovered, withBefore } from "./before";
import { claim } from "./claims";
import { isImport } from "./imported";
import { believeGone, managementIdentity, type ManagedObject } from "./identity";
import { applyToSharedList, sharedList } from "./sharedList";
import { recordTakeover, takenOverThisRun, type ObjectRef } from "./takeovers";
import { checkWithSettings, isUnknown, readInputs } from "./validation";
import type { BudgetFields, BudgetState } from "./budgetSchema";

/**
 * What differs between the objects a budget belongs to. `R` is the service's record of one
 * object (its `budget` is the object's), `I` the resource's inputs, `O` its outputs.
 */
export interface BudgetTarget<R extends { budget?: number }, I extends BudgetFields, O extends BudgetState> {
  /** As messages name them: the resource type ("MessagingBudget"), the object ("messaging account"), its id input ("accountId") and what lists the ids ("getMessagingAccounts()"). */
  names: { kind: string; what: string; idField: string; listedBy: string };
  /** The object's id in the inputs or the outputs. */
  idIn(props: I | O): string;
  /** The inputs a refresh records: the object's id and budget. */
  inputsOf(id: string, budget: number): I;
  /** Every object of this user, as the service lists them. */
  list(client: MgmtClient): Promise<R[]>;
  /** The object of that id among `records`, if it is live (not kept by the service as deleted). */
  find(records: R[], id: string): R | undefined;
  setBudget(client: MgmtClient, id: string, value: number): Promise<void>;
  /** The outputs: the object's fields the resource reports (region, state...) and the budget's state. */
  outputs(record: R, state: BudgetState): O;
  takeover(id: string): ObjectRef;
}

export function budgetOperations<R extends { budget?: number }, I extends BudgetFields, O extends BudgetState>(
  target: BudgetTarget<R, I, O>,
  Inputs: z.ZodObject & z.ZodType<I>,
): pulumi.dynamic.ResourceProvider<I, O> {
  const { kind, what, idField, listedBy } = target.names;
  const listKey = `${what}s`;
  const label = (id: string) => `the budget of ${what} "${id}"`;
  const noSuchObject = (id: string) =>
    `${what} "${id}" not found for this user: check ${idField} (${listedBy} lists them)`;
  /** The budget as the not-found rule sees it (believeGone): gone, unless other credentials are asking. */
  const managedBudget = (client: MgmtClient, id: string, managedBy: string | undefined): ManagedObject => ({
    what: label(id),
    managedBy,
    asking: managementIdentity(client.settings),
    settings: client.settings,
  });

  async function live(client: MgmtClient, id: string): Promise<R | undefined> {
    return target.find(await sharedList(listKey, () => target.list(client)), id);
  }
  async function setBudget(client: MgmtClient, id: string, value: number): Promise<void> {
    await target.setBudget(client, id, value);
    await applyToSharedList<R>(listKey, (all) => {
      const found = target.find(all, id);
      if (found) found.budget = value;
    });
  }
  const current = (record: R) => record.budget ?? 0;

  return {
    async check(olds, news) {
      const result = checkWithSettings(Inputs, news, ["management"]);
      // Not yet validated: the id may be missing, of another type, or unknown at preview.
      const id: unknown = target.idIn(news);
      const conflict = claim(
        kind,
        idField,
        id,
        news.resourceName,
        `the budget of ${what} "${id}": a ${what} has one budget`,
      );
      if (conflict) return { inputs: result.inputs, failures: [...(result.failures ?? []), conflict] };
      return withBefore(result, olds, async () => {
        if (isUnknown(id)) return undefined;
        const record = await live(apiClient(), String(id));
        return record ? { budget: current(record) } : new Absent(idField, noSuchObject(String(id)));
      });
    },

    async diff(_id, olds: O, news) {
      const replaces = target.idIn(olds) !== target.idIn(news) ? [idField] : [];
      return { changes: replaces.length > 0 || olds.budget !== news.budget, replaces };
    },

    async create(news) {
      const inputs = Inputs.parse(news);
      const { before, budget: wanted } = inputs;
      const id = target.idIn(inputs);
      const client = apiClient();
      const record = await live(client, id);
      if (!record) throw new UserError(noSuchObject(id));
      const previous = before?.budget ?? current(record);
      recordTakeover(target.takeover(id));
      if (previous !== wanted) await setBudget(client, id, wanted);
      return {
        id,
        outs: target.outputs(record, {
          budget: wanted,
          previousBudget: previous,
          budgetSet: wanted,
          managedBy: managementIdentity(client.settings),
        }),
      };
    },

    async read(id, stored) {
      const client = apiClient();
      const record = await live(client, id);
      if (!record) {
        believeGone(managedBudget(client, id, stored?.managedBy));
        return {};
      }
      const now = current(record);
      const props = stored!;
      // Imported by the engine (imported.ts): the budget in place is found, not set, so destroy leaves it.
      // Imported by recovery (before.ts): the interrupted create set the budget only if the declared value is in place.
      const [previous, set] = isImport(stored)
        ? [now, now]
        : isRecovered(props)
          ? [props.before!.budget, now === props.budget ? props.budget : props.before!.budget]
          : [props.previousBudget, props.budgetSet];
      const outs = target.outputs(record, {
        budget: now,
        previousBudget: previous,
        budgetSet: set,
        managedBy: managementIdentity(client.settings),
      });
      return { id, props: outs, inputs: readInputs<O>(target.inputsOf(id, now)) };
    },

    async update(id, olds: O, news) {
      const client = apiClient();
      if (olds.budget !== news.budget) {
        await setBudget(client, id, news.budget).catch((err: unknown) => {
          if (isNotFound(err)) {
            believeGone(managedBudget(client, id, olds.managedBy));
            throw err.about(noSuchObject(id));
          }
          throw err instanceof ApiError ? err.about(`${label(id)} could not be set to ${news.budget}`) : err;
        });
      }
      return {
        outs: { ...olds, budget: news.budget, budgetSet: news.budget, managedBy: managementIdentity(client.settings) },
      };
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
      if (!record) return believeGone(managedBudget(client, id, props.managedBy));
      if (current(record) !== props.budgetSet) return;
      await setBudget(client, id, props.previousBudget).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
        believeGone(managedBudget(client, id, props.managedBy));
      });
    },
  };
}
