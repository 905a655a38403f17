/**
 * MessagingQueue: one queue of a messaging account, in one of two modes.
 *
 * - **Declared** (`parallelism` given): the stack owns the queue's settings. `up` upserts the full
 *   desired state (`parallelism`, `paused`, default false) whenever it differs from what the
 *   service reports; refresh reads it (a 404 drops it, under the identity guard); destroy deletes
 *   it if this stack created it. A queue that already existed is taken into the declared state
 *   but left in place on destroy.
 * - **Existing** (no `parallelism`): a queue the publishers created. `paused: true/false` pauses
 *   or resumes it (read first: a pause found in place is not this stack's), a new `resumeTrigger`
 *   value resumes it once; it is never deleted, and destroy gives back only the pause or resume
 *   this stack made, while it is still in place.
 * - Removing `parallelism` moves a declared queue to the second mode: an update in the preview,
 *   and the queue is released (never deleted afterwards).
 *
 * The service limits how many queues an account has (`max_queues`): it answers 412, and the error
 * says so.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { MgmtClient } from "../../api/client";
import { ifFound, isNotFound } from "../../api/errors";
import type { QueueRecord } from "../../api/schemas";
import { apiClient } from "../../runtime";
import { isNewResource, isRecovered, withBefore } from "../before";
import { believeGone, latestToken, type ManagedObject } from "../identity";
import { act, regionProblem, queueLabel, tokenIdentityOf } from "../messagingActions";
import { isNewTrigger } from "../messagingFields";
import { pauseChanged, type PauseProvenance } from "../pauseProvenance";
import { withoutUndefined } from "../../withoutUndefined";
import { actingWith, assertSameAccount, judgedAs, revokedTokenError, type Acting } from "../tokenAccount";
import { recordTakeover, takenOverThisRun, type ObjectRef } from "../takeovers";
import type { Api } from "../../api/endpoints";
import { checkWithSettings, isUnknown, readInputs } from "../validation";
import { isImport, regionAndName } from "../imported";
import { QueueInputs, queueId, type QueueBefore, type QueueOutputs, type QueueSettings } from "./schema";
import { sayReleased } from "../released";

const isDeclared = (q: { parallelism?: number }) => q.parallelism !== undefined;
/** The pause state the stack declares: a declared queue runs unless told otherwise. */
const wantedPause = (q: QueueInputs) => q.paused ?? (isDeclared(q) ? false : undefined);

/** The queue as the not-found rule sees it (believeGone): gone only if the account that acted on it asks. */
function managedQueue(client: MgmtClient, props: QueueOutputs, acting: Acting): ManagedObject {
  return {
    what: `${queueLabel(props.queue)} in ${props.region}`,
    managedBy: props.managedBy,
    asking: judgedAs(acting, props),
    settings: client.settings,
  };
}

async function readQueue(
  client: MgmtClient,
  q: { queue: string; region: QueueInputs["region"]; token?: string },
): Promise<QueueRecord | undefined> {
  return ifFound(act(queueLabel(q.queue), "read", q, () => client.queues(q).get(q.queue)));
}

type QueueTarget = Pick<QueueInputs, "queue" | "region" | "token">;

/** Whether create looks the queue up first: a declared queue, or one whose pause is declared. */
const readsFirst = (inputs: QueueInputs) => isDeclared(inputs) || inputs.paused !== undefined;

const beforeOf = (q: QueueRecord | undefined): QueueBefore =>
  q ? withoutUndefined({ exists: true, parallelism: q.parallelism, paused: q.paused, lag: q.lag }) : { exists: false };

/**
 * A queue recovery imported: what the interrupted create did, from how `check` found the queue
 * and how it is now. A declared queue that was absent and exists now was created by it; settings
 * or a pause count as the stack's only where the declared value is in place and differs from the
 * one found.
 */
function recoveredProvenance(
  props: QueueOutputs,
  now: QueueRecord,
): Pick<QueueOutputs, "created" | "found" | "pausedByStack" | "resumedByStack"> {
  const before = props.before!;
  if (isDeclared(props)) {
    if (!before.exists) return { created: true };
    const applied = now.parallelism === props.parallelism && now.paused === wantedPause(props);
    const changed = before.parallelism !== props.parallelism || before.paused !== wantedPause(props);
    return {
      created: false,
      found:
        applied && changed && before.parallelism !== undefined && before.paused !== undefined
          ? { parallelism: before.parallelism, paused: before.paused }
          : undefined,
    };
  }
  return {
    pausedByStack: props.paused === true && before.paused === false && now.paused === true ? true : undefined,
    resumedByStack: props.paused === false && before.paused === true && now.paused === false ? true : undefined,
  };
}

const queueRef = (client: MgmtClient, target: QueueTarget): ObjectRef => ({
  kind: "queue",
  identity: tokenIdentityOf(client, target.token),
  id: queueId(target),
});

/** Gives back a pause state this stack changed on a queue it does not declare, while its own state is in place. */
async function giveBackPause(
  client: MgmtClient,
  target: QueueTarget,
  pausedNow: boolean | undefined,
  prov: PauseProvenance,
): Promise<void> {
  const label = queueLabel(target.queue);
  if (prov.pausedByStack && pausedNow === true)
    await act(label, "resume", target, () => client.queues(target).resume(target.queue));
  if (prov.resumedByStack && pausedNow === false)
    await act(label, "pause", target, () => client.queues(target).pause(target.queue));
}

/**
 * Puts a taken-over declared queue's settings back as found, while the ones this stack set are
 * still in place (someone's later change is theirs). Returns the pause state afterwards.
 */
async function giveBackSettings(client: MgmtClient, props: QueueOutputs): Promise<boolean | undefined> {
  const label = queueLabel(props.queue);
  const now = await act(label, "read", props, () => client.queues(props).get(props.queue));
  if (props.found && now.parallelism === props.parallelism && now.paused === wantedPause(props)) {
    const found = props.found;
    await act(label, "give back the settings of", props, () =>
      client.queues(props).upsert({ queueName: props.queue, ...found }),
    );
    return found.paused;
  }
  return now.paused;
}

/** A taken-over queue's settings before this update changes them, or undefined if it changes none. */
async function settingsBefore(
  client: MgmtClient,
  olds: QueueOutputs,
  inputs: QueueInputs,
): Promise<QueueSettings | undefined> {
  const before: Partial<QueueSettings> = isDeclared(olds)
    ? { parallelism: olds.parallelism, paused: olds.paused }
    : await readQueue(client, olds).then((q) => (q ? { parallelism: q.parallelism, paused: q.paused } : {}));
  if (before.parallelism === undefined || before.paused === undefined) return undefined;
  return before.parallelism !== inputs.parallelism || before.paused !== wantedPause(inputs)
    ? (before as QueueSettings)
    : undefined;
}

/**
 * Brings the queue from `current` to `inputs`; returns the trigger last acted on and, for a queue
 * the stack does not declare, what it changed of the pause (what destroy gives back).
 */
async function converge(
  client: MgmtClient,
  inputs: QueueInputs,
  current: PauseProvenance & { parallelism?: number; paused?: boolean; lastResumeTrigger?: string | number },
  onError: (err: unknown) => never,
) {
  const label = queueLabel(inputs.queue);
  const t = inputs.token;
  const paused = wantedPause(inputs);
  if (isDeclared(inputs)) {
    if (current.parallelism !== inputs.parallelism || current.paused !== paused) {
      // Always the full state: the upsert resets an omitted parallelism.
      await act(label, "create or update", inputs, () =>
        client
          .queues({ region: inputs.region, token: t })
          .upsert({ queueName: inputs.queue, parallelism: inputs.parallelism!, paused: paused! }),
      ).catch(onError);
    }
  }
  let { pausedByStack, resumedByStack } = isDeclared(inputs)
    ? { pausedByStack: undefined, resumedByStack: undefined }
    : current;
  if (!isDeclared(inputs) && paused !== undefined && paused !== current.paused) {
    if (paused)
      await act(label, "pause", inputs, () =>
        client.queues({ region: inputs.region, token: t }).pause(inputs.queue),
      ).catch(onError);
    else
      await act(label, "resume", inputs, () =>
        client.queues({ region: inputs.region, token: t }).resume(inputs.queue),
      ).catch(onError);
    ({ pausedByStack, resumedByStack } = pauseChanged({ pausedByStack, resumedByStack }, paused));
  } else if (!isDeclared(inputs) && paused === undefined && (pausedByStack || resumedByStack)) {
    // No longer declared: what the stack changed goes back to what it found.
    await giveBackPause(client, inputs, current.paused, { pausedByStack, resumedByStack }).catch(onError);
    pausedByStack = resumedByStack = undefined;
  }
  let lastResumeTrigger = current.lastResumeTrigger;
  if (isNewTrigger(inputs.resumeTrigger, lastResumeTrigger)) {
    await act(label, "resume", inputs, () =>
      client.queues({ region: inputs.region, token: t }).resume(inputs.queue),
    ).catch(onError);
    lastResumeTrigger = inputs.resumeTrigger;
  }
  return { lastResumeTrigger, pausedByStack, resumedByStack };
}

const rethrow = (err: unknown): never => {
  throw err;
};

/** What an import knows of a queue before reading it: where it is (`<region>/<queue>`, queueId). */
function importedQueue(id: string): QueueOutputs {
  const { region, name } = regionAndName(id, "messaging queue");
  return { region, queue: name };
}

/** The API areas its calls go to (its declaration's `apis`). */
export const APIS: readonly Api[] = ["regional"];

export const messagingQueueOperations: pulumi.dynamic.ResourceProvider<QueueInputs, QueueOutputs> = {
  async check(olds, news) {
    const result = checkWithSettings(QueueInputs, news, APIS, news.token);
    const failures = [...(result.failures ?? [])];
    if (news.resumeTrigger !== undefined && (news.paused !== undefined || news.parallelism !== undefined)) {
      failures.push({
        property: "resumeTrigger",
        reason:
          "resumeTrigger: only for a queue whose state this stack does not declare (no paused, no parallelism); with paused declared, set paused: false to resume",
      });
    }
    if (failures.length > 0) return { inputs: news, failures };
    const { region, queue, token, parallelism, paused } = news;
    const known = ![region, queue, token, parallelism, paused].some(isUnknown);
    const checked = await withBefore(result, olds, async () => {
      if (!known || !readsFirst(news)) return undefined;
      return beforeOf(await readQueue(apiClient(), { region, queue, token }));
    });
    // Where check read nothing at the declared region's address (a queue only resumed on a trigger,
    // or one moved to another region or token), one read there refuses another region's token.
    const moved = !isNewResource(olds) && (olds.region !== region || olds.token !== token);
    if (checked.failures?.length || !known || !(moved || (isNewResource(olds) && !readsFirst(news)))) return checked;
    const failure = await regionProblem(apiClient(), queueLabel(queue), { region, token });
    return failure ? { inputs: checked.inputs, failures: [failure] } : checked;
  },

  // Declared state against recorded state (refresh keeps it current): no call.
  async diff(_id, olds: QueueOutputs, news: QueueInputs) {
    // A preview fails when the up would: another account's token is refused before any call.
    await assertSameAccount(apiClient(), queueLabel(olds.queue), olds, news.token);
    const replaces = (["queue", "region"] as const).filter((k) => olds[k] !== news[k]);
    const paused = wantedPause(news);
    const changes =
      replaces.length > 0 ||
      (isDeclared(news) && olds.parallelism !== news.parallelism) ||
      // Declared to undeclared (or back): the queue's ownership changes, which the preview shows.
      isDeclared(olds) !== isDeclared(news) ||
      (paused === undefined && (olds.pausedByStack === true || olds.resumedByStack === true)) ||
      (paused !== undefined && olds.paused !== paused) ||
      isNewTrigger(news.resumeTrigger, olds.lastResumeTrigger) ||
      olds.token !== news.token;
    return { changes, replaces, deleteBeforeReplace: true };
  },

  async create(news: QueueInputs) {
    const { before: checked, ...inputs } = QueueInputs.parse(news);
    const client = apiClient();
    // A declared queue is looked up first: one that exists is not this stack's to delete. So is
    // one whose pause is declared: a pause found in place is not this stack's to lift.
    const before = readsFirst(inputs) ? (checked ?? beforeOf(await readQueue(client, inputs))) : undefined;
    const found = before?.exists ? before : undefined;
    const acting = await actingWith(client, queueLabel(inputs.queue), {}, inputs.token);
    recordTakeover(queueRef(client, inputs));
    const done = await converge(client, inputs, { parallelism: found?.parallelism, paused: found?.paused }, rethrow);
    return {
      id: queueId(inputs),
      outs: withoutUndefined({
        ...inputs,
        paused: wantedPause(inputs),
        managedBy: acting.managedBy,
        tokenFingerprint: acting.tokenFingerprint,
        created: isDeclared(inputs) ? found === undefined : undefined,
        found:
          isDeclared(inputs) &&
          found?.parallelism !== undefined &&
          found.paused !== undefined &&
          (found.parallelism !== inputs.parallelism || found.paused !== wantedPause(inputs))
            ? { parallelism: found.parallelism, paused: found.paused }
            : undefined,
        lag: found?.lag,
        ...done,
      }),
    };
  },

  async read(id, stored) {
    // Imported by the engine (imported.ts): the queue its id names, with mgmt:messagingToken, not
    // declared (no `parallelism`): never deleted, its pause left alone.
    const imported = isImport(stored);
    const props: QueueOutputs = imported ? importedQueue(id) : stored!;
    const client = apiClient();
    // The account's current token when the recorded one was rotated away (tokenAccount.ts).
    const acting = await actingWith(client, queueLabel(props.queue), props, props.token);
    const record = await ifFound(client.queues({ region: props.region, token: acting.token }).get(props.queue)).catch(
      (err: unknown) => {
        throw revokedTokenError(err, queueLabel(props.queue), props.region, acting, props, client.settings);
      },
    );
    if (!record) {
      believeGone(managedQueue(client, props, acting));
      return {};
    }
    // Only what the stack declares is compared later: `paused` is recorded where it is declared.
    const observed = {
      paused: props.paused !== undefined || isDeclared(props) ? record.paused : undefined,
      lag: record.lag,
      parallelism: isDeclared(props) ? record.parallelism : undefined,
    };
    const { before: _, ...recorded } = props;
    const recovered = isRecovered(props) ? recoveredProvenance(props, record) : {};
    // A token the resource holds is recorded as the one acted with (a secret: additionalSecretOutputs).
    const token = props.token === undefined ? undefined : acting.token;
    return {
      id,
      props: withoutUndefined({
        ...recorded,
        ...recovered,
        ...observed,
        token,
        managedBy: acting.managedBy,
        tokenFingerprint: acting.tokenFingerprint,
      }),
      ...(imported && { inputs: readInputs<QueueOutputs>({ region: props.region, queue: props.queue }) }),
    };
  },

  async update(_id, olds: QueueOutputs, news: QueueInputs) {
    // `before` stays in the inputs for stable diffs (before.ts); the outputs never carry it.
    const { before: _, ...declared } = QueueInputs.parse(news);
    const client = apiClient();
    const acting = await actingWith(client, queueLabel(olds.queue), olds, declared.token);
    const guard = (err: unknown): never => {
      if (isNotFound(err)) believeGone(managedQueue(client, olds, acting));
      throw revokedTokenError(err, queueLabel(olds.queue), olds.region, acting, olds, client.settings);
    };
    const inputs = { ...declared, token: acting.token };
    // The first time this stack changes the settings of a queue it took over, what was there is what it gives back.
    const found =
      isDeclared(inputs) && !olds.created
        ? (olds.found ?? (await settingsBefore(client, { ...olds, token: acting.token }, inputs).catch(guard)))
        : undefined;
    // Declared to undeclared: settings this stack changed go back as found before it lets go.
    const released = isDeclared(olds) && !isDeclared(inputs) && olds.found !== undefined;
    const pausedNow = released
      ? await giveBackSettings(client, { ...olds, token: acting.token }).catch(guard)
      : olds.paused;
    // From existing to declared: the queue was there before this stack, so it stays not created.
    const done = await converge(
      client,
      inputs,
      {
        parallelism: isDeclared(olds) ? olds.parallelism : undefined,
        paused: pausedNow,
        lastResumeTrigger: olds.lastResumeTrigger,
        pausedByStack: olds.pausedByStack,
        resumedByStack: olds.resumedByStack,
      },
      guard,
    );
    return {
      outs: withoutUndefined({
        ...declared,
        paused: wantedPause(inputs),
        managedBy: acting.managedBy,
        tokenFingerprint: acting.tokenFingerprint,
        created: isDeclared(inputs) ? olds.created === true : undefined,
        found,
        lag: olds.lag,
        ...done,
      }),
    };
  },

  async delete(_id, stored: QueueOutputs) {
    // A token this run rotated (MessagingAccount) is revoked: act with the one it became.
    const props = { ...stored, token: latestToken(stored.token) };
    const client = apiClient();
    // Renamed in code (or replaced): the resource that took the queue over in this run keeps it,
    // messages and settings included.
    if (takenOverThisRun(queueRef(client, props))) return;
    const acting = await actingWith(client, queueLabel(props.queue), stored, props.token);
    const t = acting.token;
    try {
      if (isDeclared(props) && props.created) {
        await act(queueLabel(props.queue), "delete", props, () =>
          client.queues({ region: props.region, token: t }).delete(props.queue),
        );
      } else if (isDeclared(props) && props.found) {
        await giveBackSettings(client, { ...props, token: t });
      } else if (!isDeclared(props) && (props.pausedByStack || props.resumedByStack)) {
        // Given back only while this stack's own state is still in place: read what is there now.
        const now = await act(queueLabel(props.queue), "read", props, () =>
          client.queues({ region: props.region, token: t }).get(props.queue),
        );
        await giveBackPause(client, { ...props, token: t }, now.paused, props);
      }
      if (!(isDeclared(props) && props.created)) await sayReleased(queueLabel(props.queue));
    } catch (err) {
      if (!isNotFound(err))
        throw revokedTokenError(err, queueLabel(props.queue), props.region, acting, stored, client.settings);
      believeGone(managedQueue(client, props, acting));
    }
  },
};
