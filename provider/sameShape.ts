/**
 * `true` when two object types have the same keys and the same types, `false` otherwise: tsc then
 * fails on the `true` written for a pair that drifted. Mutual assignability alone would miss an
 * optional key that only one side has.
 */
export type Same<A, B> = [A] extends [B]
  ? [B] extends [A]
    ? [keyof A] extends [keyof B]
      ? [keyof B] extends [keyof A]
        ? true
        : false
      : false
    : false
  : false;
