/**
 * MessagingSigningKeys: a messaging account's signing keys (`current` and `next`, both secrets),
 * rotated as desired state. The service makes the keys with the account and cannot delete them:
 * create reads them, destroy releases them and changes nothing.
 *
 * - `rotation`: a value the keys have not seen yet rotates them once (the old `next` becomes
 *   `current`, a fresh `next` is made); the same value again, or removing it, does nothing, and
 *   creating with a value records it without rotating (as `tokenRotation` does, rotation.ts). The
 *   new pair is the update's output, so every resource and output fed from the keys in the same
 *   `up` receives it.
 * - A rotation is not harmless to resend: each one moves the pair on by a step, and receivers
 *   holding the old pair stop verifying after two. So a rotation runs once per value, also across
 *   runs: the stack records `nextWhenActed`, the `next` key when the last value was acted on; keys
 *   whose `current` is that key have rotated since (an `up` killed after the service rotated,
 *   whose state still holds the old pair and the old value, or refreshed since), and the new value
 *   takes that rotation as its own instead of making a second. Within a run, an ambiguous answer
 *   is followed by a read (rotation.ts `rotateOnce`).
 * - Refresh reads the pair as the service has it (a rotation made elsewhere shows).
 * - The keys are the account's of `token` (default mgmt:messagingToken), followed through a
 *   rotation of that token as keys and queues are (tokenAccount.ts).
 */
import type * as pulumi from "@pulumi/pulumi";
import type { MgmtClient } from "../../api/client";
import { MESSAGING_REGIONS, type MessagingRegion, type SigningKeysRecord } from "../../api/schemas";
import { apiClient } from "../../runtime";
import { UserError } from "../../userError";
import { withoutUndefined } from "../../withoutUndefined";
import { latestToken } from "../identity";
import { isImport } from "../imported";
import { act, tokenIdentityOf } from "../messagingActions";
import { sayReleased } from "../released";
import { rotateOnce, rotationDue } from "../rotation";
import { recordTakeover, takenOverThisRun, type ObjectRef } from "../takeovers";
import { actingWith, assertSameAccount, revokedTokenError } from "../tokenAccount";
import type { Api } from "../../api/endpoints";
import { checkWithSettings, readInputs } from "../validation";
import { Inputs, signingKeysId, type SigningKeysOutputs } from "./schema";

const LABEL = "signing keys";
const releasedLabel = (region: string) => `the signing keys of the messaging account in ${region}`;

/** The API areas its calls go to (its declaration's `apis`). */
export const APIS: readonly Api[] = ["regional"];

const keysRef = (client: MgmtClient, target: { region: string; token?: string }): ObjectRef => ({
  kind: "signing keys",
  identity: tokenIdentityOf(client, target.token),
  id: signingKeysId(target),
});

/** Only the pair: the service's answer may carry more, which the stack does not keep. */
const pairOf = (r: SigningKeysRecord) => ({ current: r.current, next: r.next });

/** An import's id: the region of mgmt:messagingToken's account. */
function importedRegion(id: string): MessagingRegion {
  if (!(MESSAGING_REGIONS as readonly string[]).includes(id))
    throw new UserError(
      `import id "${id}" of messaging signing keys: give the account's region, one of ${MESSAGING_REGIONS.join(", ")}; the account is mgmt:messagingToken's`,
    );
  return id as MessagingRegion;
}

export const messagingSigningKeysOperations: pulumi.dynamic.ResourceProvider<Inputs, SigningKeysOutputs> = {
  async check(_olds, news) {
    return checkWithSettings(Inputs, news, APIS, news.token);
  },

  // Declared against recorded (refresh keeps it current): no call, but another account's token is
  // refused before any, so a preview fails where the up would.
  async diff(_id, olds: SigningKeysOutputs, news: Inputs) {
    await assertSameAccount(apiClient(), LABEL, olds, news.token);
    const replaces = olds.region !== news.region ? ["region"] : [];
    const changes = replaces.length > 0 || rotationDue(olds.rotation, news.rotation) || olds.token !== news.token;
    return { changes, replaces };
  },

  async create(news: Inputs) {
    const inputs = Inputs.parse(news);
    const client = apiClient();
    const acting = await actingWith(client, LABEL, {}, inputs.token);
    const target = { region: inputs.region, token: acting.token };
    recordTakeover(keysRef(client, inputs));
    const pair = pairOf(await act(LABEL, "read", target, () => client.signingKeys(target).get()));
    return {
      id: signingKeysId(inputs),
      // Creating with a rotation value records it: the next new value rotates.
      outs: withoutUndefined({
        ...inputs,
        ...pair,
        nextWhenActed: pair.next,
        managedBy: acting.managedBy,
        tokenFingerprint: acting.tokenFingerprint,
      }),
    };
  },

  async read(id, stored) {
    // Imported by the engine (imported.ts): the keys of mgmt:messagingToken's account in the
    // region the id names; nothing rotated yet by this stack.
    const imported = isImport(stored);
    const props: Partial<SigningKeysOutputs> & { region: MessagingRegion } = imported
      ? { region: importedRegion(id) }
      : stored!;
    const client = apiClient();
    // The account's current token when the recorded one was rotated away (tokenAccount.ts).
    const acting = await actingWith(client, LABEL, props, props.token);
    const target = { region: props.region, token: acting.token };
    const pair = pairOf(
      await act(LABEL, "read", target, () => client.signingKeys(target).get()).catch((err: unknown) => {
        throw revokedTokenError(err, LABEL, props.region, acting, props, client.settings);
      }),
    );
    return {
      id,
      props: withoutUndefined({
        ...props,
        ...pair,
        nextWhenActed: props.nextWhenActed ?? pair.next,
        token: props.token === undefined ? undefined : acting.token,
        managedBy: acting.managedBy,
        tokenFingerprint: acting.tokenFingerprint,
      }),
      ...(imported && { inputs: readInputs<SigningKeysOutputs>({ region: props.region }) }),
    };
  },

  async update(_id, olds: SigningKeysOutputs, news: Inputs) {
    const inputs = Inputs.parse(news);
    const client = apiClient();
    const acting = await actingWith(client, LABEL, olds, inputs.token);
    const target = { region: inputs.region, token: acting.token };
    const keys = client.signingKeys(target);
    const guard = (err: unknown): never => {
      throw revokedTokenError(err, LABEL, olds.region, acting, olds, client.settings);
    };
    let pair = { current: olds.current, next: olds.next };
    let nextWhenActed = olds.nextWhenActed ?? olds.next;
    if (rotationDue(olds.rotation, inputs.rotation)) {
      const live = pairOf(await act(LABEL, "read", target, () => keys.get()).catch(guard));
      if (live.current === nextWhenActed) {
        // Rotated since the last value was acted on: by a run that did not live to record it, or
        // elsewhere. That rotation is this value's; a second would lose the pair receivers hold.
        pair = live;
      } else {
        const answer = await act(LABEL, "rotate", target, () =>
          rotateOnce(
            live.current,
            async () => (await keys.get()).current,
            () => keys.rotate(),
          ),
        ).catch(guard);
        pair = pairOf(answer ?? (await act(LABEL, "read", target, () => keys.get()).catch(guard)));
      }
      nextWhenActed = pair.next;
    }
    return {
      outs: withoutUndefined({
        ...inputs,
        ...pair,
        rotation: inputs.rotation ?? olds.rotation,
        nextWhenActed,
        managedBy: acting.managedBy,
        tokenFingerprint: acting.tokenFingerprint,
      }),
    };
  },

  async delete(_id, stored: SigningKeysOutputs) {
    // The keys cannot be deleted: destroy changes nothing on the service and says so. Renamed in
    // code (or replaced), the resource that took them over in this run says nothing either.
    const props = { ...stored, token: latestToken(stored.token) };
    if (takenOverThisRun(keysRef(apiClient(), props))) return;
    await sayReleased(releasedLabel(props.region));
  },
};
