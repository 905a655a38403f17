/**
 * FlowControlKey: how one flow control key should be, converged by `up`.
 *
 * - `paused`: true pauses the key (endpoint 8); false lifts a pause (assumed resume); left out,
 *   the pause is not this stack's business: an operator's incident pause stays.
 * - `pin`: limits pinned through the API (contract "Additions"), which win over the settings
 *   carried by messages. Pinning resets the key's rate counters, so a pin is sent only for parts
 *   whose value changed. A part removed from `pin` is given back as it was found (unpinned, or
 *   pinned again at the value found), only while the key still holds the stack's value (read
 *   first: an operator's later pin stays); a part this stack never pinned is left alone.
 * - `resetRateTrigger`: a value the key has not seen yet resets its rate once (endpoint 7).
 *
 * Refresh reads the key (endpoint 6). Where the service reports `isPaused`, `isPinned*` and the
 * limits, they are recorded, so the next preview shows the change back to the declared state;
 * where it reports only `flowControlKey` and `waitListSize`, only the wait list is refreshed.
 * Destroy gives back what this stack changed, and only while its own value is still in place
 * (read first): a pause it set is lifted, a pause it lifted is set again, a part it pinned goes
 * back to the value found (or is unpinned). A pause or pin someone else set is never touched.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { MgmtClient } from "../../api/client";
import { ifFound, isNotFound } from "../../api/errors";
import type { FlowControlInfo, MessagingRegion, PinQuery } from "../../api/schemas";
import { apiClient } from "../../runtime";
import { isNewResource, isRecovered, withBefore } from "../before";
import { believeGone, latestToken, type ManagedObject } from "../identity";
import { act, regionProblem, keyLabel, tokenIdentityOf } from "../messagingActions";
import { isNewTrigger } from "../messagingFields";
import { pauseChanged } from "../pauseProvenance";
import { withoutUndefined } from "../../withoutUndefined";
import { actingWith, assertSameAccount, judgedAs, revokedTokenError, type Acting } from "../tokenAccount";
import { recordTakeover, takenOverThisRun, type ObjectRef } from "../takeovers";
import type { Api } from "../../api/endpoints";
import { checkWithSettings, isUnknown, readInputs } from "../validation";
import { failedPartway } from "../partial";
import { isImport, regionAndName } from "../imported";
import {
  KeyInputs,
  keyId,
  type KeyBefore,
  type KeyOutputs,
  type KeyProvenance,
  type Pin,
  type PinPart,
} from "./schema";
import { sayReleased } from "../released";

function readKey(
  client: MgmtClient,
  inputs: { key: string; region: MessagingRegion; token?: string },
): Promise<FlowControlInfo> {
  return act(keyLabel(inputs.key), "read the wait list of", inputs, () => client.flowControl(inputs).get(inputs.key));
}

const beforeOf = (info: FlowControlInfo): KeyBefore =>
  withoutUndefined({ waitListSize: info.waitListSize, paused: info.isPaused, pin: observedPin(info, undefined) });

/**
 * A key that never carried a message: the service creates it when it is pinned (contract "Flow
 * control keys before their first message"), empty and running. Without a pin it cannot be
 * created, and the 404 stands.
 */
const ABSENT: KeyBefore = { waitListSize: 0, paused: false, absent: true };

/** How the key is before this stack acts: read, or absent when a declared pin will create it. */
async function readBefore(
  client: MgmtClient,
  inputs: KeyInputs,
  read: () => Promise<FlowControlInfo>,
): Promise<KeyBefore> {
  try {
    return beforeOf(await read());
  } catch (err) {
    if (!isNotFound(err)) throw err;
    if (inputs.pin !== undefined) return ABSENT;
    // A bare 404 would leave the user looking for a typo in a key that may only be new.
    throw err.about(
      `could not read ${keyLabel(inputs.key)} in ${inputs.region}`,
      "the service knows no such key (404): a key exists once a message used it, or once a pin created it; give it a pin, or check its name, region and token",
    );
  }
}

/**
 * A key recovery imported: what the interrupted create changed, worked out from how `check` found
 * the key and how it is now. Only a declared value now in place that differs from the one found
 * counts as the stack's; one the service does not report is not claimed.
 */
function recoveredProvenance(props: KeyOutputs, now: KeyNow): KeyProvenance {
  const before = props.before!;
  const prov: KeyProvenance = {};
  if (props.paused === true && before.paused === false && now.paused === true) prov.pausedByStack = true;
  if (props.paused === false && before.paused === true && now.paused === false) prov.resumedByStack = true;
  for (const part of partsOf(props.pin)) {
    const wanted = pick(props.pin, part);
    if (!samePart(now.pin, wanted, part) || samePart(before.pin, wanted, part)) continue;
    prov.pinnedByStack = { ...prov.pinnedByStack, ...wanted };
    const found = pick(before.pin, part);
    if (Object.keys(found).length > 0) prov.foundPin = { ...prov.foundPin, ...found };
  }
  return prov;
}

/**
 * The key as the not-found rule sees it (believeGone): a key that answers 404 is gone only if the
 * account that acted on it asks: a pause set with another account's token is still in place, and
 * swallowing the 404 would leave it there.
 */
function managedKey(client: MgmtClient, props: KeyOutputs, acting: Acting): ManagedObject {
  const what = `${keyLabel(props.key)} in ${props.region}${props.paused ? " (paused by this stack)" : ""}`;
  return { what, managedBy: props.managedBy, asking: judgedAs(acting, props), settings: client.settings };
}

/** The pin as the service reports it, over what was recorded; unreported parts stay as recorded. */
function observedPin(info: FlowControlInfo, recorded: Pin | undefined): Pin | undefined {
  const pin: Partial<Pin> = { ...recorded };
  if (info.isPinnedParallelism === false) delete pin.parallelism;
  if (info.isPinnedParallelism === true && info.parallelismMax !== undefined) pin.parallelism = info.parallelismMax;
  if (info.isPinnedRate === false) {
    delete pin.rate;
    delete pin.period;
  }
  if (info.isPinnedRate === true) {
    if (info.rateMax !== undefined) pin.rate = info.rateMax;
    if (info.ratePeriod !== undefined) pin.period = info.ratePeriod;
  }
  return Object.keys(pin).length > 0 ? (pin as Pin) : undefined;
}

const PARTS: Record<PinPart, (keyof Pin)[]> = { parallelism: ["parallelism"], rate: ["rate", "period"] };
const partsOf = (pin: Partial<Pin> | undefined): PinPart[] =>
  (["parallelism", "rate"] as const).filter((p) => pin?.[p] !== undefined);
const pick = (pin: Partial<Pin> | undefined, part: PinPart): Partial<Pin> =>
  withoutUndefined(Object.fromEntries(PARTS[part].map((k) => [k, pin?.[k]])));
const samePart = (a: Partial<Pin> | undefined, b: Partial<Pin> | undefined, part: PinPart) =>
  PARTS[part].every((k) => a?.[k] === b?.[k]);
/**
 * No pin call is due: every declared part is in place, and no part this stack pinned was
 * undeclared. A pin not known until apply (a preview) may call for one.
 */
const pinSettled = (olds: KeyOutputs, wanted: Pin | undefined) =>
  !isUnknown(wanted) &&
  (["parallelism", "rate"] as const).every((p) =>
    wanted?.[p] !== undefined ? samePart(olds.pin, pick(wanted, p), p) : !partsOf(olds.pinnedByStack).includes(p),
  );

interface KeyNow {
  paused?: boolean;
  pin?: Pin;
}

/** How the key is, as read; a service that does not report the pause or the pin: what this stack recorded stands in. */
const nowOf = (info: FlowControlInfo, recorded: KeyOutputs): KeyNow => ({
  paused: info.isPaused ?? recorded.paused,
  pin: observedPin(info, recorded.pin),
});

/** An update gives back a pause or a pin part this stack set and no longer declares. */
const givesBack = (olds: KeyOutputs, inputs: KeyInputs) =>
  (inputs.paused === undefined && (olds.pausedByStack === true || olds.resumedByStack === true)) ||
  partsOf(olds.pinnedByStack).some((p) => !partsOf(inputs.pin).includes(p));

/**
 * Gives back one pin part this stack set, if its value is still in place: the value found before
 * (pinned again) or no pin (unpinned). Someone else's later value is left.
 */
async function giveBackPart(
  client: MgmtClient,
  target: KeyTarget,
  now: KeyNow,
  prov: KeyProvenance,
  part: PinPart,
): Promise<void> {
  if (!samePart(now.pin, prov.pinnedByStack, part)) return;
  const found = pick(prov.foundPin, part);
  const label = keyLabel(target.key);
  if (Object.keys(found).length > 0)
    await act(label, "pin back", target, () => client.flowControl(target).pin(target.key, found as PinQuery));
  else await act(label, "unpin", target, () => client.flowControl(target).unpin(target.key, { [part]: true }));
}

/** Gives back a pause state this stack changed, if its own state is still in place. */
async function giveBackPause(client: MgmtClient, target: KeyTarget, now: KeyNow, prov: KeyProvenance): Promise<void> {
  const label = keyLabel(target.key);
  if (prov.pausedByStack && now.paused === true)
    await act(label, "lift the pause of", target, () => client.flowControl(target).resume(target.key));
  if (prov.resumedByStack && now.paused === false)
    await act(label, "pause", target, () => client.flowControl(target).pause(target.key));
}

type KeyTarget = Pick<KeyInputs, "key" | "region" | "token">;

const keyRef = (client: MgmtClient, target: KeyTarget): ObjectRef => ({
  kind: "flow control key",
  identity: tokenIdentityOf(client, target.token),
  id: keyId(target),
});

/**
 * Brings the key from `now` (what the service has) to `inputs`, acting only on what `inputs`
 * declares, and on what this stack set earlier and no longer declares (given back). Returns the
 * provenance to record and the pause state afterwards.
 */
async function converge(
  client: MgmtClient,
  inputs: KeyInputs,
  now: KeyNow,
  prior: KeyProvenance & { lastResetTrigger?: string | number },
  onError: (err: unknown) => never,
  /** After each call that changed the key: what it has now, and whether the declared pin is in place. */
  reached: (done: Converged, pinned: boolean) => void = () => {},
): Promise<Converged> {
  const label = keyLabel(inputs.key);
  const t = inputs.token;
  const prov: KeyProvenance = { ...prior, pinnedByStack: { ...prior.pinnedByStack } };
  let paused = now.paused;
  let lastResetTrigger = prior.lastResetTrigger;
  const result = (): Converged => ({
    paused,
    lastResetTrigger,
    pausedByStack: prov.pausedByStack,
    resumedByStack: prov.resumedByStack,
    pinnedByStack: partsOf(prov.pinnedByStack).length > 0 ? { ...prov.pinnedByStack } : undefined,
    foundPin: prov.foundPin && Object.keys(prov.foundPin).length > 0 ? { ...prov.foundPin } : undefined,
  });
  if (inputs.paused === true && now.paused !== true) {
    await act(label, "pause", inputs, () =>
      client.flowControl({ region: inputs.region, token: t }).pause(inputs.key),
    ).catch(onError);
    ({ pausedByStack: prov.pausedByStack, resumedByStack: prov.resumedByStack } = pauseChanged(prov, true));
    paused = true;
    reached(result(), false);
  } else if (inputs.paused === false && now.paused === true) {
    await act(label, "lift the pause of", inputs, () =>
      client.flowControl({ region: inputs.region, token: t }).resume(inputs.key),
    ).catch(onError);
    ({ pausedByStack: prov.pausedByStack, resumedByStack: prov.resumedByStack } = pauseChanged(prov, false));
    paused = false;
    reached(result(), false);
  } else if (inputs.paused === undefined && (prov.pausedByStack || prov.resumedByStack)) {
    await giveBackPause(client, inputs, now, prov).catch(onError);
    if (prov.pausedByStack && now.paused === true) paused = false;
    if (prov.resumedByStack && now.paused === false) paused = true;
    prov.pausedByStack = prov.resumedByStack = undefined;
  }

  const pin: PinQuery = {};
  for (const part of ["parallelism", "rate"] as const) {
    const wanted = pick(inputs.pin, part);
    if (Object.keys(wanted).length > 0) {
      if (samePart(now.pin, wanted, part)) continue;
      // The first time this stack pins a part, what was there is what it gives back later.
      if (prov.pinnedByStack![part] === undefined)
        prov.foundPin = withoutUndefined({ ...prov.foundPin, ...pick(now.pin, part) });
      Object.assign(pin, wanted);
      Object.assign(prov.pinnedByStack!, wanted);
    } else if (partsOf(prov.pinnedByStack).includes(part)) {
      await giveBackPart(client, inputs, now, prov, part).catch(onError);
      for (const k of PARTS[part]) {
        delete prov.pinnedByStack![k];
        if (prov.foundPin) delete prov.foundPin[k];
      }
    }
  }
  if (Object.keys(pin).length > 0) {
    await act(label, "pin", inputs, () =>
      client.flowControl({ region: inputs.region, token: t }).pin(inputs.key, pin),
    ).catch(onError);
    reached(result(), true);
  }

  if (isNewTrigger(inputs.resetRateTrigger, lastResetTrigger)) {
    await act(label, "reset the rate of", inputs, () =>
      client.flowControl({ region: inputs.region, token: t }).resetRate(inputs.key),
    ).catch(onError);
    lastResetTrigger = inputs.resetRateTrigger;
  }
  return result();
}

/** What converge leaves the key with, and what of it is the stack's. */
interface Converged extends KeyProvenance {
  paused?: boolean;
  lastResetTrigger?: string | number;
}

/** What an import knows of a key before reading it: where it is (`<region>/<key>`, keyId). */
function importedKey(id: string): KeyOutputs {
  const { region, name } = regionAndName(id, "flow control key");
  return { region, key: name, waitListSize: 0 };
}

const rethrow = (err: unknown): never => {
  throw err;
};

/** The API areas its calls go to (its declaration's `apis`). */
export const APIS: readonly Api[] = ["regional"];

export const flowControlKeyOperations: pulumi.dynamic.ResourceProvider<KeyInputs, KeyOutputs> = {
  async check(olds, news) {
    const result = checkWithSettings(KeyInputs, news, APIS, news.token);
    const { key, token, pin, region } = news;
    const known = ![key, token, pin, region].some(isUnknown);
    const checked = await withBefore(result, olds, async () => {
      if (!known) return undefined;
      // Read at the declared region's address: a token of another region's account is refused there.
      return readBefore(apiClient(), news, () => readKey(apiClient(), { key, region, token }));
    });
    // A key that exists moved to another region or token: checked before the up acts there.
    if (checked.failures?.length || !known || isNewResource(olds) || (olds.region === region && olds.token === token))
      return checked;
    const failure = await regionProblem(apiClient(), keyLabel(key), { region, token });
    return failure ? { inputs: checked.inputs, failures: [failure] } : checked;
  },

  // Compares the declared state with the recorded one, which refresh keeps up to date: no call.
  async diff(_id, olds: KeyOutputs, news: KeyInputs) {
    // A preview fails when the up would: another account's token is refused before any call.
    await assertSameAccount(apiClient(), keyLabel(olds.key), olds, news.token);
    const replaces = (["key", "region"] as const).filter((k) => olds[k] !== news[k]);
    const changes =
      replaces.length > 0 ||
      (news.paused !== undefined && olds.paused !== news.paused) ||
      // A value this stack set that is no longer declared goes back to what was found.
      (news.paused === undefined && (olds.pausedByStack === true || olds.resumedByStack === true)) ||
      !pinSettled(olds, news.pin) ||
      isNewTrigger(news.resetRateTrigger, olds.lastResetTrigger) ||
      olds.token !== news.token;
    return { changes, replaces, deleteBeforeReplace: true };
  },

  async create(news: KeyInputs) {
    const { before: checked, ...inputs } = KeyInputs.parse(news);
    const client = apiClient();
    const before = checked ?? (await readBefore(client, inputs, () => readKey(client, inputs)));
    const acting = await actingWith(client, keyLabel(inputs.key), {}, inputs.token);
    recordTakeover(keyRef(client, inputs));
    const outputs = (done: Converged, pin: Pin | undefined) =>
      withoutUndefined({
        ...inputs,
        pin,
        waitListSize: before.waitListSize,
        managedBy: acting.managedBy,
        tokenFingerprint: acting.tokenFingerprint,
        ...done,
      });
    // What this create changed so far: a failure after a change reports it (failedPartway), so that
    // a pause or pin it set is the stack's to give back, not found in place by the next attempt.
    let reached: { done: Converged; pin: Pin | undefined } | undefined;
    const partway = (err: unknown): never => {
      if (!reached) throw err;
      throw failedPartway(err, keyId(inputs), outputs(reached.done, reached.pin), news);
    };
    try {
      // The pin creates a key that does not exist yet; its pause and rate reset need it to exist.
      const created = before.absent
        ? await converge(
            client,
            { ...inputs, paused: undefined, resetRateTrigger: undefined },
            {},
            {},
            rethrow,
            (done) => (reached = { done, pin: inputs.pin }),
          )
        : {};
      // What is already in place is not sent again, and is not this stack's: only what it changes is.
      const now = before.absent
        ? { paused: false, pin: inputs.pin }
        : { paused: before.paused, pin: before.pin as Pin | undefined };
      const done = await converge(client, inputs, now, created, rethrow, (done, pinned) => {
        reached = { done, pin: pinned ? inputs.pin : now.pin };
      });
      return { id: keyId(inputs), outs: outputs(done, inputs.pin) };
    } catch (err) {
      return partway(err);
    }
  },

  async read(id, stored) {
    // Imported by the engine (imported.ts): the key its id names, with mgmt:messagingToken; nothing is the stack's.
    const imported = isImport(stored);
    const props: KeyOutputs = imported ? importedKey(id) : stored!;
    const client = apiClient();
    // The account's current token when the recorded one was rotated away (tokenAccount.ts).
    const acting = await actingWith(client, keyLabel(props.key), props, props.token);
    const info = await ifFound(client.flowControl({ region: props.region, token: acting.token }).get(props.key)).catch(
      (err: unknown) => {
        throw revokedTokenError(err, keyLabel(props.key), props.region, acting, props, client.settings);
      },
    );
    if (!info) {
      believeGone(managedKey(client, props, acting));
      return {};
    }
    const { before: _, ...recorded } = props;
    const recovered = isRecovered(props)
      ? recoveredProvenance(props, { paused: info.isPaused, pin: observedPin(info, undefined) })
      : {};
    const outs: KeyOutputs = {
      ...recorded,
      ...recovered,
      // A token the resource holds is recorded as the one acted with (a secret: additionalSecretOutputs).
      token: props.token === undefined ? undefined : acting.token,
      waitListSize: info.waitListSize,
      managedBy: acting.managedBy,
      tokenFingerprint: acting.tokenFingerprint,
      pin: observedPin(info, props.pin),
    };
    if (info.isPaused !== undefined) outs.paused = info.isPaused;
    // `paused` and `pin` record what the service has; the declared values stay the inputs, except
    // for an import, whose inputs are where the key is: its pause and pin stay out of the stack's hands.
    const inputs = imported ? { region: props.region, key: props.key } : undefined;
    return { id, props: withoutUndefined(outs), ...(inputs && { inputs: readInputs<KeyOutputs>(inputs) }) };
  },

  async update(_id, olds: KeyOutputs, news: KeyInputs) {
    // `before` stays in the inputs for stable diffs (before.ts); the outputs never carry it.
    const { before: _, ...inputs } = KeyInputs.parse(news);
    const client = apiClient();
    const acting = await actingWith(client, keyLabel(olds.key), olds, inputs.token);
    const guard = (err: unknown): never => {
      if (isNotFound(err)) believeGone(managedKey(client, olds, acting));
      throw revokedTokenError(err, keyLabel(olds.key), olds.region, acting, olds, client.settings);
    };
    const target = { ...inputs, token: acting.token };
    // What the service has now, as last recorded (refresh keeps it up to date), except where this
    // stack gives something back: only while its own value is still in place, so read first.
    const now = givesBack(olds, inputs)
      ? await readKey(client, target).then((info) => nowOf(info, olds), guard)
      : { paused: olds.paused, pin: olds.pin };
    const done = await converge(client, target, now, olds, guard);
    return {
      outs: withoutUndefined({
        ...inputs,
        waitListSize: olds.waitListSize,
        managedBy: acting.managedBy,
        tokenFingerprint: acting.tokenFingerprint,
        ...done,
      }),
    };
  },

  async delete(_id, stored: KeyOutputs) {
    // A token this run rotated (MessagingAccount) is revoked: act with the one it became.
    const props = { ...stored, token: latestToken(stored.token) };
    const client = apiClient();
    const label = keyLabel(props.key);
    const t = props.token;
    // Nothing of the stack's to give back: the key, which the stack never makes, is only released
    // (needing no token: unless one is at hand, no takeover is looked up).
    if (!props.pausedByStack && !props.resumedByStack && partsOf(props.pinnedByStack).length === 0) {
      const known = (t ?? client.settings.messagingToken) !== undefined;
      return known && takenOverThisRun(keyRef(client, props)) ? undefined : sayReleased(label);
    }
    // Renamed in code (or replaced): the resource that took the key over in this run keeps it as it is.
    if (takenOverThisRun(keyRef(client, props))) return;
    const acting = await actingWith(client, label, stored, t);
    const target = { ...props, token: acting.token };
    try {
      // Given back only while this stack's own value is still in place: read what is there now.
      const now = nowOf(await readKey(client, target), props);
      await giveBackPause(client, target, now, props);
      for (const part of partsOf(props.pinnedByStack)) await giveBackPart(client, target, now, props, part);
      await sayReleased(label);
    } catch (err) {
      // A key that no longer exists has nothing left to lift; one another account cannot see may.
      if (!isNotFound(err)) throw revokedTokenError(err, label, props.region, acting, stored, client.settings);
      believeGone(managedKey(client, props, acting));
    }
  },
};
