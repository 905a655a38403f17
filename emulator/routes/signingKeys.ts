/**
 * Signing keys (messaging API, Bearer, regional; contract "signing keys"): read the pair, and
 * rotate it one step (the old `next` becomes `current`, a fresh `next` is made), so receivers
 * holding both keys keep verifying through a rotation.
 */
import type { SigningKeysRecord } from "pulumi-mgmt/internal/api/schemas";
import type { EmulatorState, Handler } from "../http";
import { rotateSigningKeys, type SigningKeys } from "../state";

export function signingKeyHandlers(_emu: EmulatorState) {
  const recordOf = (keys: SigningKeys): SigningKeysRecord => ({ current: keys.current, next: keys.next });
  return {
    getSigningKeys: (ctx) => ({ body: recordOf(ctx.account().signingKeys) }),
    rotateSigningKeys: (ctx) => {
      const keys = ctx.account().signingKeys;
      rotateSigningKeys(keys);
      return { body: recordOf(keys), mutates: true };
    },
  } satisfies Record<string, Handler>;
}
