/**
 * MessagingBudget: the monthly spending limit of one messaging account, as code.
 *
 * Create and update set the budget (endpoint 5); delete gives the account back the budget it had
 * before this resource took it over (`previousBudget`). Reads come from the account list
 * (endpoint 4), shared per provider process so that refreshing many budgets lists the accounts
 * once, not once per budget. An account has one budget, so one stack may declare one
 * MessagingBudget per account (checked in `check`, so a preview already fails).
 */
import type * as pulumi from "@pulumi/pulumi";
import type { MgmtClient } from "../../api/client";
import { ApiError } from "../../api/errors";
import type { MessagingAccountRecord } from "../../api/schemas";
import { apiClient } from "../../runtime";
import { UserError } from "../../userError";
import { isRecovered, withBefore } from "../before";
import { confirmGone, goneIfNotFound, managementIdentity } from "../identity";
import { applyToSharedList, sharedList } from "../sharedList";
import { recordTakeover, takenOverThisRun } from "../takeovers";
import { checkWithSettings, isUnknown, readInputs } from "../validation";
import { Inputs, type MessagingBudgetOutputs } from "./schema";

const ACCOUNTS = "messaging accounts";

/**
 * Account id to the MessagingBudget that claimed it in this provider process, which serves one
 * deployment: two budgets for one account would overwrite each other on every `up` and restore
 * each other's value on destroy.
 */
const claims = new Map<string, string>();

function claimAccount(resourceName: unknown, accountId: unknown): pulumi.dynamic.CheckFailure | undefined {
  if (typeof resourceName !== "string" || typeof accountId !== "string" || isUnknown(accountId)) return undefined;
  const other = claims.get(accountId);
  if (other !== undefined && other !== resourceName) {
    return {
      property: "accountId",
      reason: `MessagingBudget "${resourceName}" and MessagingBudget "${other}" both set the budget of messaging account "${accountId}": an account has one budget, so declare one MessagingBudget per account`,
    };
  }
  claims.set(accountId, resourceName);
  return undefined;
}

function listAccounts(client: MgmtClient): Promise<MessagingAccountRecord[]> {
  return sharedList(ACCOUNTS, () => client.messagingAccounts.list());
}

async function liveAccount(client: MgmtClient, accountId: string): Promise<MessagingAccountRecord | undefined> {
  const account = (await listAccounts(client)).find((a) => a.id === accountId);
  return account && !account.deletion_time ? account : undefined;
}

const accountLabel = (id: string) => `the budget of messaging account "${id}"`;

const accountNotFound = (accountId: string) => `messaging account "${accountId}" not found for this user: check accountId`;

async function setBudget(client: MgmtClient, accountId: string, value: number): Promise<void> {
  await client.messagingAccounts.setBudget(accountId, value);
  await applyToSharedList<MessagingAccountRecord>(ACCOUNTS, (accounts) => {
    const account = accounts.find((a) => a.id === accountId);
    if (account) account.budget = value;
  });
}

function outputsOf(account: MessagingAccountRecord, budgetValue: number, previousBudget: number, budgetSet: number, managedBy: string): MessagingBudgetOutputs {
  const outs: MessagingBudgetOutputs = { accountId: account.id, budget: budgetValue, previousBudget, budgetSet, region: account.region, managedBy };
  if (account.state !== undefined) outs.state = account.state;
  if (account.type !== undefined) outs.type = account.type;
  return outs;
}

export const messagingBudgetProvider: pulumi.dynamic.ResourceProvider<Inputs, MessagingBudgetOutputs> = {
  async check(olds, news) {
    const result = checkWithSettings(Inputs, news, ["management"]);
    const conflict = claimAccount(news.resourceName, news.accountId);
    if (conflict) return { inputs: result.inputs, failures: [...(result.failures ?? []), conflict] };
    return withBefore(result, olds, async () => {
      if (isUnknown(news.accountId)) return undefined;
      const account = await liveAccount(apiClient(), String(news.accountId));
      return account ? { budget: account.budget ?? 0 } : undefined;
    });
  },

  async diff(_id, olds: MessagingBudgetOutputs, news: Inputs) {
    const replaces = olds.accountId !== news.accountId ? ["accountId"] : [];
    return { changes: replaces.length > 0 || olds.budget !== news.budget, replaces };
  },

  async create(news: Inputs) {
    const { before, ...inputs } = Inputs.parse(news);
    const client = apiClient();
    const account = await liveAccount(client, inputs.accountId);
    if (!account) throw new UserError(accountNotFound(inputs.accountId));
    const previous = before?.budget ?? account.budget ?? 0;
    recordTakeover({ kind: "messaging budget", accountId: inputs.accountId });
    if (previous !== inputs.budget) await setBudget(client, inputs.accountId, inputs.budget);
    return { id: inputs.accountId, outs: outputsOf(account, inputs.budget, previous, inputs.budget, managementIdentity(client.settings)) };
  },

  async read(id, stored) {
    const props = stored!; // the engine always passes what it recorded
    const client = apiClient();
    const account = await liveAccount(client, id);
    if (!account) {
      confirmGone(accountLabel(id), props.managedBy, managementIdentity(client.settings), client.settings);
      return {};
    }
    const current = account.budget ?? 0;
    // Imported by recovery (before.ts): the interrupted create set the budget only if the declared value is in place.
    const [previous, set] = isRecovered(props) ? [props.before!.budget, current === props.budget ? props.budget : props.before!.budget] : [props.previousBudget, props.budgetSet];
    return { id, props: outputsOf(account, current, previous, set, managementIdentity(client.settings)), inputs: readInputs<MessagingBudgetOutputs>({ accountId: id, budget: current }) };
  },

  async update(id, olds: MessagingBudgetOutputs, news: Inputs) {
    const client = apiClient();
    if (olds.budget !== news.budget) {
      await setBudget(client, id, news.budget).catch((err) => {
        if (goneIfNotFound(err, accountLabel(id), olds.managedBy, managementIdentity(client.settings), client.settings)) throw err.about(accountNotFound(id));
        throw err instanceof ApiError ? err.about(`${accountLabel(id)} could not be set to ${news.budget}`) : err;
      });
    }
    return { outs: { ...olds, budget: news.budget, budgetSet: news.budget, managedBy: managementIdentity(client.settings) } };
  },

  async delete(id, props: MessagingBudgetOutputs) {
    const client = apiClient();
    if (props.budgetSet === props.previousBudget) return; // this stack changed nothing
    // Renamed in code (or replaced): the resource that took the budget over in this run keeps it.
    if (takenOverThisRun({ kind: "messaging budget", accountId: id })) return;
    // An account that is gone has no budget left to restore; one we cannot see is not gone.
    const gone = () => confirmGone(accountLabel(id), props.managedBy, managementIdentity(client.settings), client.settings);
    // Restored only while the account still has the stack's value: a budget someone set since
    // (finance raised it, another stack took it) is theirs.
    const account = await liveAccount(client, id);
    if (!account) return gone();
    if ((account.budget ?? 0) !== props.budgetSet) return;
    await setBudget(client, id, props.previousBudget).catch((err) => {
      if (!goneIfNotFound(err, accountLabel(id), props.managedBy, managementIdentity(client.settings), client.settings)) throw err;
    });
  },
};
