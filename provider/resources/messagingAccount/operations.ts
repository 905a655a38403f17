/**
 * MessagingAccount: an existing messaging account's credentials, plan and production pack, as
 * desired state (the API cannot create or delete an account).
 *
 * - `tokenRotation`: a new value replaces the account's tokens (rotate-token); the old ones stop
 *   working at once. The new token is an output of the same update, so keys and queues fed from
 *   it act with it in this `up`; their identity is the account (tokenAccount.ts), and where it
 *   cannot be told, the guard accepts the new token because this run made it (identity.ts
 *   `recordRotation`).
 * - `plan`: moves the account to a paid or fixed plan (set-plan). There is no way back to free:
 *   `check` refuses "free", so a preview fails. Destroy leaves the plan.
 * - `prodPack`: on or off. Destroy, or leaving it out later, gives back the value found before
 *   this stack changed it, while the stack's value is still in place.
 * - The budget is MessagingBudget's; two MessagingAccount resources for one account fail at
 *   preview, naming both (claims.ts).
 * Refresh reads the account: plan, production pack and tokens as the service has them, so the next
 * preview shows the way back to what is declared.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { MgmtClient } from "../../api/client";
import { ApiError, ifFound, isNotFound } from "../../api/errors";
import type { MessagingAccountRecord } from "../../api/schemas";
import { apiClient } from "../../runtime";
import { UserError } from "../../userError";
import { Absent, isRecovered, withBefore } from "../before";
import { claim } from "../claims";
import { isImport } from "../imported";
import { believeGone, managementIdentity, recordRotation, type ManagedObject } from "../identity";
import { rotateOnce, rotationDue } from "../rotation";
import { recordTakeover, takenOverThisRun } from "../takeovers";
import type { Api } from "../../api/endpoints";
import { checkWithSettings, isUnknown, readInputs } from "../validation";
import { failedPartway } from "../partial";
import { Inputs, planOf, type MessagingAccountOutputs } from "./schema";
import { sayReleased } from "../released";

const accountLabel = (id: string) => `messaging account "${id}"`;
const RecoveredInputs = Inputs.pick({ before: true, prodPack: true });
const noSuchAccount = (id: string) =>
  new UserError(`${accountLabel(id)} not found for this user: check accountId (getMessagingAccounts() lists them)`);

/** The account as the not-found rule sees it (believeGone): gone, unless other credentials are asking. */
const managedAccount = (client: MgmtClient, id: string, managedBy: string | undefined): ManagedObject => ({
  what: accountLabel(id),
  managedBy,
  asking: managementIdentity(client.settings),
  settings: client.settings,
});

/** The account, or undefined when this user has no live account of that id. */
async function readAccount(client: MgmtClient, id: string): Promise<MessagingAccountRecord | undefined> {
  const record = await ifFound(client.messagingAccounts.get(id));
  return record?.deletion_time ? undefined : record;
}

function outputsOf(
  record: MessagingAccountRecord,
  kept: Pick<MessagingAccountOutputs, "foundProdPack" | "prodPackSet" | "tokenRotation">,
  managedBy: string,
): MessagingAccountOutputs {
  const outs: MessagingAccountOutputs = {
    accountId: record.id,
    token: record.token,
    plan: planOf(record),
    prodPack: record.prod_pack_enabled ?? false,
    region: record.region,
    foundProdPack: kept.foundProdPack,
    managedBy,
  };
  if (record.read_only_token !== undefined) outs.readOnlyToken = record.read_only_token;
  if (record.type !== undefined) outs.type = record.type;
  if (record.reserved_type !== undefined) outs.reservedType = record.reserved_type;
  if (record.state !== undefined) outs.state = record.state;
  if (kept.prodPackSet !== undefined) outs.prodPackSet = kept.prodPackSet;
  if (kept.tokenRotation !== undefined) outs.tokenRotation = kept.tokenRotation;
  return outs;
}

/** The API areas its calls go to (its declaration's `apis`). */
export const APIS: readonly Api[] = ["management"];

export const messagingAccountOperations: pulumi.dynamic.ResourceProvider<Inputs, MessagingAccountOutputs> = {
  async check(olds, news) {
    const result = checkWithSettings(Inputs, news, APIS);
    const conflict = claim(
      "MessagingAccount",
      "accountId",
      news.accountId,
      news.resourceName,
      `the plan, production pack and tokens of messaging account "${news.accountId}"`,
    );
    if (conflict) return { inputs: result.inputs, failures: [...(result.failures ?? []), conflict] };
    return withBefore(result, olds, async () => {
      // Not known until apply (a preview): read when it is.
      if (typeof news.accountId !== "string" || isUnknown(news.accountId)) return undefined;
      const record = await readAccount(apiClient(), news.accountId);
      return record
        ? { prodPack: record.prod_pack_enabled ?? false }
        : new Absent("accountId", noSuchAccount(news.accountId).message);
    });
  },

  async diff(_id, olds: MessagingAccountOutputs, news: Inputs) {
    const replaces = olds.accountId !== news.accountId ? ["accountId"] : [];
    const changes =
      replaces.length > 0 ||
      rotationDue(olds.tokenRotation, news.tokenRotation) ||
      (news.plan !== undefined && news.plan !== olds.plan) ||
      (news.prodPack !== undefined && news.prodPack !== olds.prodPack) ||
      // A production pack this stack set and no longer declares goes back to what was found.
      (news.prodPack === undefined && olds.prodPackSet !== undefined);
    return { changes, replaces };
  },

  async create(news: Inputs) {
    const { before, ...inputs } = Inputs.parse(news);
    const client = apiClient();
    const id = inputs.accountId;
    const about = (err: unknown) => (err instanceof ApiError ? err.about(accountLabel(id)) : err);
    let record = await readAccount(client, id).catch((err) => Promise.reject(about(err)));
    if (!record) throw noSuchAccount(id);
    recordTakeover({ kind: "messaging account", id });
    const foundProdPack = before?.prodPack ?? record.prod_pack_enabled ?? false;
    const setsPlan = inputs.plan !== undefined && inputs.plan !== planOf(record);
    const setsPack = inputs.prodPack !== undefined && inputs.prodPack !== (record.prod_pack_enabled ?? false);
    // Creating with a tokenRotation value records it: the next new value rotates.
    const prodPackSet =
      inputs.prodPack !== undefined && inputs.prodPack !== foundProdPack ? inputs.prodPack : undefined;
    const outputs = (r: MessagingAccountRecord, packSet: boolean | undefined) =>
      outputsOf(
        r,
        { foundProdPack, prodPackSet: packSet, tokenRotation: inputs.tokenRotation },
        managementIdentity(client.settings),
      );
    // What this create changed so far: a failure after a change reports it (failedPartway), so
    // that the pack found stays what destroy gives back.
    const done = { plan: false, pack: false };
    try {
      if (setsPlan) {
        await client.messagingAccounts.setPlan(id, inputs.plan!);
        done.plan = true;
      }
      if (setsPack) {
        await client.messagingAccounts.setProdPack(id, inputs.prodPack!);
        done.pack = true;
      }
      if (setsPlan || setsPack) record = await client.messagingAccounts.get(id);
    } catch (err) {
      if (!done.plan && !done.pack) throw about(err);
      const outs = done.pack
        ? outputs({ ...record, prod_pack_enabled: inputs.prodPack }, prodPackSet)
        : outputs(record, setsPack ? undefined : prodPackSet);
      if (done.plan) outs.plan = inputs.plan!;
      throw failedPartway(about(err), id, outs, news);
    }
    return { id, outs: outputs(record, prodPackSet) };
  },

  async read(id, stored) {
    const client = apiClient();
    const record = await readAccount(client, id);
    if (!record) {
      believeGone(managedAccount(client, id, stored?.managedBy));
      return {};
    }
    const props = stored!;
    let kept: Pick<MessagingAccountOutputs, "foundProdPack" | "prodPackSet" | "tokenRotation"> = props;
    // Imported by the engine (imported.ts): the production pack as it is is found; the stack set nothing.
    if (isImport(stored)) kept = { foundProdPack: record.prod_pack_enabled ?? false };
    else if (isRecovered(props)) {
      // Imported by recovery (before.ts), which records the interrupted create's inputs (the declared
      // prodPack, and what check found): that create set the pack only if the declared value is in place.
      const { before, prodPack } = RecoveredInputs.parse(props);
      const current = record.prod_pack_enabled ?? false;
      kept = {
        foundProdPack: before!.prodPack,
        prodPackSet:
          prodPack !== undefined && prodPack === current && prodPack !== before!.prodPack ? prodPack : undefined,
        tokenRotation: props.tokenRotation,
      };
    }
    const outs = outputsOf(record, kept, managementIdentity(client.settings));
    return {
      id,
      props: outs,
      inputs: readInputs<MessagingAccountOutputs>(
        outs.tokenRotation === undefined ? { accountId: id } : { accountId: id, tokenRotation: outs.tokenRotation },
      ),
    };
  },

  async update(id, olds: MessagingAccountOutputs, news: Inputs) {
    const client = apiClient();
    const guard = (err: unknown): never => {
      if (isNotFound(err)) {
        believeGone(managedAccount(client, id, olds.managedBy));
        throw noSuchAccount(id);
      }
      throw err instanceof ApiError ? err.about(accountLabel(id)) : err;
    };
    // How the account is now, not as last recorded: someone may have changed the pack since.
    let record = await client.messagingAccounts.get(id).catch(guard);
    const livePack = record.prod_pack_enabled ?? false;
    let { foundProdPack, prodPackSet } = olds;
    let changed = false;
    if (news.plan !== undefined && news.plan !== planOf(record)) {
      await client.messagingAccounts.setPlan(id, news.plan).catch(guard);
      changed = true;
    }
    if (news.prodPack !== undefined) {
      // The stack starts managing the pack: how it is now is what destroy gives back.
      if (olds.prodPackSet === undefined) foundProdPack = livePack;
      if (news.prodPack !== livePack) {
        await client.messagingAccounts.setProdPack(id, news.prodPack).catch(guard);
        changed = true;
      }
      prodPackSet = news.prodPack !== foundProdPack ? news.prodPack : undefined;
    } else if (olds.prodPackSet !== undefined) {
      // No longer declared: given back, while the stack's value is still in place.
      if (livePack === olds.prodPackSet && olds.prodPackSet !== foundProdPack) {
        await client.messagingAccounts.setProdPack(id, foundProdPack).catch(guard);
        changed = true;
      }
      prodPackSet = undefined;
    }
    // Rotated last: a failure above must not leave a rotation the service made unrecorded (its
    // old token revoked, the stack still holding it).
    if (rotationDue(olds.tokenRotation, news.tokenRotation)) {
      // The record read above is the token as it is just before (plan and pack leave it alone).
      const before = record.token;
      const answer = await rotateOnce(
        before,
        async () => (await client.messagingAccounts.get(id)).token,
        () => client.messagingAccounts.rotateToken(id),
      ).catch(guard);
      record = answer ?? (await client.messagingAccounts.get(id).catch(guard));
      // Keys and queues of this stack still record the old token's identity: it is this account's.
      recordRotation(olds.token, record.token);
      recordRotation(before, record.token);
    } else if (changed) {
      record = await client.messagingAccounts.get(id).catch(guard);
    }
    const tokenRotation = news.tokenRotation ?? olds.tokenRotation;
    return {
      outs: outputsOf(record, { foundProdPack, prodPackSet, tokenRotation }, managementIdentity(client.settings)),
    };
  },

  async delete(id, props: MessagingAccountOutputs) {
    // Renamed in code (or replaced): the resource that took the account over in this run keeps it.
    if (takenOverThisRun({ kind: "messaging account", id })) return;
    // The plan stays (there is no way back to free); only a production pack this stack changed is
    // given back. The account, which the stack never makes, is released.
    if (props.prodPackSet === undefined || props.prodPackSet === props.foundProdPack)
      return sayReleased(accountLabel(id));
    const client = apiClient();
    const record = await readAccount(client, id);
    if (!record) return believeGone(managedAccount(client, id, props.managedBy));
    // Someone changed it since: theirs.
    if ((record.prod_pack_enabled ?? false) === props.prodPackSet) {
      const gone = await client.messagingAccounts.setProdPack(id, props.foundProdPack).then(
        () => false,
        (err) => {
          if (!isNotFound(err)) throw err;
          believeGone(managedAccount(client, id, props.managedBy));
          return true;
        },
      );
      if (gone) return;
    }
    await sayReleased(accountLabel(id));
  },
};
