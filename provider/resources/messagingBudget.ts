/**
 * MessagingBudget: the monthly spending limit of one messaging account, as code.
 *
 * Create and update set the budget (endpoint 5); delete gives the account back the budget it had
 * before this resource took it over (`previousBudget`). Reads come from the account list
 * (endpoint 4), shared per provider process so that refreshing many budgets lists the accounts
 * once, not once per budget.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { MgmtClient } from "../api/client";
import { ApiError } from "../api/errors";
import {
  MESSAGING_REGIONS,
  budget,
  camelize,
  type Camelized,
  type MessagingAccountRecord,
  type MessagingRegion,
} from "../api/schemas";
import { apiClient } from "../runtime";
import { programClient } from "./programClient";
import { applyToSharedList, sharedList } from "./sharedList";
import { thinProvider } from "./thinProvider";
import { checkWith } from "./validation";

export interface MessagingBudgetArgs {
  /** The messaging account's id (from `getMessagingAccounts()`). Changing it replaces the resource. */
  accountId: pulumi.Input<string>;
  /** Whole dollars per month: 0 (no limit) or 20 to 10000. Changes update in place. */
  budget: pulumi.Input<number>;
}

const Inputs = z.object({
  accountId: z.string({ error: "must be a string" }).min(1, "must not be empty (give a messaging account id)"),
  budget,
});
type Inputs = z.infer<typeof Inputs>;

export interface MessagingBudgetOutputs extends Inputs {
  previousBudget: number;
  state?: string;
  type?: string;
  region: MessagingRegion;
}

const ACCOUNTS = "messaging accounts";

function listAccounts(client: MgmtClient): Promise<MessagingAccountRecord[]> {
  return sharedList(ACCOUNTS, () => client.listMessagingAccounts());
}

async function liveAccount(client: MgmtClient, accountId: string): Promise<MessagingAccountRecord | undefined> {
  const account = (await listAccounts(client)).find((a) => a.id === accountId);
  return account && !account.deletion_time ? account : undefined;
}

class AccountNotFound extends Error {
  constructor(accountId: string) {
    super(`messaging account "${accountId}" not found for this user: check accountId`);
  }
}

async function setBudget(client: MgmtClient, accountId: string, value: number): Promise<void> {
  try {
    await client.updateBudget(accountId, value);
  } catch (err) {
    if (err instanceof ApiError && err.isNotFound) throw new AccountNotFound(accountId);
    throw err;
  }
  await applyToSharedList<MessagingAccountRecord>(ACCOUNTS, (accounts) => {
    const account = accounts.find((a) => a.id === accountId);
    if (account) account.budget = value;
  });
}

function outputsOf(account: MessagingAccountRecord, budgetValue: number, previousBudget: number): MessagingBudgetOutputs {
  const outs: MessagingBudgetOutputs = { accountId: account.id, budget: budgetValue, previousBudget, region: account.region };
  if (account.state !== undefined) outs.state = account.state;
  if (account.type !== undefined) outs.type = account.type;
  return outs;
}

export const provider: pulumi.dynamic.ResourceProvider = {
  async check(_olds, news) {
    return checkWith(Inputs, news);
  },

  async diff(_id, olds: MessagingBudgetOutputs, news: Inputs) {
    const replaces = olds.accountId !== news.accountId ? ["accountId"] : [];
    return { changes: replaces.length > 0 || olds.budget !== news.budget, replaces };
  },

  async create(news: Inputs) {
    const inputs = Inputs.parse(news);
    const client = apiClient();
    const account = await liveAccount(client, inputs.accountId);
    if (!account) throw new AccountNotFound(inputs.accountId);
    const previous = account.budget ?? 0;
    if (previous !== inputs.budget) await setBudget(client, inputs.accountId, inputs.budget);
    return { id: inputs.accountId, outs: outputsOf(account, inputs.budget, previous) };
  },

  async read(id, props: MessagingBudgetOutputs) {
    const account = await liveAccount(apiClient(), id);
    if (!account) return {};
    const current = account.budget ?? 0;
    return { id, props: outputsOf(account, current, props.previousBudget), inputs: { accountId: id, budget: current } };
  },

  async update(id, olds: MessagingBudgetOutputs, news: Inputs) {
    if (olds.budget !== news.budget) await setBudget(apiClient(), id, news.budget);
    return { outs: { ...olds, budget: news.budget } };
  },

  async delete(id, props: MessagingBudgetOutputs) {
    try {
      if (props.budget !== props.previousBudget) await setBudget(apiClient(), id, props.previousBudget);
    } catch (err) {
      // An account that is gone has no budget left to restore.
      if (!(err instanceof AccountNotFound)) throw err;
    }
  },
};

export class MessagingBudget extends pulumi.dynamic.Resource {
  declare readonly accountId: pulumi.Output<string>;
  declare readonly budget: pulumi.Output<number>;
  /** The budget the account had before this resource took it over; restored on delete. */
  declare readonly previousBudget: pulumi.Output<number>;
  /** The account's state, type and region as last read. */
  declare readonly state: pulumi.Output<string | undefined>;
  declare readonly type: pulumi.Output<string | undefined>;
  declare readonly region: pulumi.Output<MessagingRegion>;

  constructor(name: string, args: MessagingBudgetArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      thinProvider("resources/messagingBudget"),
      name,
      { previousBudget: undefined, state: undefined, type: undefined, region: undefined, accountId: args.accountId, budget: args.budget },
      opts,
      "mgmt",
      "MessagingBudget",
    );
  }
}

// -- functions ---------------------------------------------------------------------------------

export type MessagingAccount = Camelized<MessagingAccountRecord>;

/** The user's messaging accounts, every field of record 2.2. Use the Output form to keep tokens secret. */
export async function getMessagingAccounts(): Promise<MessagingAccount[]> {
  return (await programClient().listMessagingAccounts()).map((a) => camelize(a));
}

export function getMessagingAccountsOutput(): pulumi.Output<MessagingAccount[]> {
  return pulumi.secret(pulumi.output(getMessagingAccounts()));
}

/**
 * One active account in a region (the first, or the first of `type`), as a secret Output: the
 * usual way to feed `MessagingControls` its region and token.
 */
export function getMessagingAccountOutput(args: { region: pulumi.Input<MessagingRegion>; type?: pulumi.Input<"free" | "paid"> }): pulumi.Output<MessagingAccount> {
  return pulumi.secret(
    pulumi.all([args.region, args.type, getMessagingAccounts()]).apply(([region, type, accounts]) => {
      if (!(MESSAGING_REGIONS as readonly string[]).includes(region)) {
        throw new Error(`region must be one of ${MESSAGING_REGIONS.join(", ")}, got "${region}"`);
      }
      const found = accounts.find((a) => a.region === region && !a.deletionTime && (!type || a.type === type));
      if (!found) throw new Error(`no active messaging account in ${region}${type ? ` of type ${type}` : ""} for this user`);
      return found;
    }),
  );
}
