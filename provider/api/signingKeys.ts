import type { Call, MessagingTarget } from "./request";
import { SigningKeysRecord } from "./schemas";

/** One messaging account's signing keys (contract "signing keys"): both are secrets. */
export class SigningKeys {
  constructor(
    private readonly call: Call,
    private readonly target: MessagingTarget,
  ) {}

  /** The pair receivers verify with: `current` and `next`. */
  get(): Promise<SigningKeysRecord> {
    return this.call("getSigningKeys", { ...this.target, schema: SigningKeysRecord });
  }
  /**
   * Makes the old `next` the `current` and a fresh `next`, and answers the new pair. Not harmless
   * to resend (each one moves the pair on by a step): after an ambiguous answer, read first.
   */
  rotate(): Promise<SigningKeysRecord> {
    return this.call("rotateSigningKeys", { ...this.target, schema: SigningKeysRecord });
  }
}
