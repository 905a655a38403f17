/**
 * Credential rotation as desired state (`tokenRotation` on SearchIndex and MessagingAccount): a
 * value the resource has not acted on yet rotates once; the same value again, or removing it,
 * does nothing. Creating with a value records it without rotating.
 */
import { z } from "zod";
import { ApiError } from "../api/errors";

export const tokenRotation = z
  .string({ error: "must be a string (a date or a ticket number, for example)" })
  .min(1, "must not be empty (leave tokenRotation out to rotate nothing)");

/** Whether an update must rotate: a value is given that differs from the one last acted on. */
export const rotationDue = (recorded: string | undefined, wanted: string | undefined): boolean =>
  wanted !== undefined && wanted !== recorded;

const ROTATE_ATTEMPTS = 3;

/**
 * Rotates once. A rotation is not harmless to resend (each one revokes the tokens the last one
 * made), so after an ambiguous answer the current token is read back and compared with the one
 * read before: changed, the rotation happened; unchanged, it surely did not, and is sent again.
 * `before` is the token as read just before; returns the rotation's answer when there was one.
 */
export async function rotateOnce<T>(
  before: string,
  currentToken: () => Promise<string>,
  rotate: () => Promise<T>,
): Promise<T | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await rotate();
    } catch (err) {
      if (!(err instanceof ApiError && err.isAmbiguous)) throw err;
      if ((await currentToken()) !== before) return undefined;
      if (attempt >= ROTATE_ATTEMPTS)
        throw err.about(
          `not rotated after ${attempt} attempts, each answered ambiguously and followed by a read that found the old token`,
        );
    }
  }
}
