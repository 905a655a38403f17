/**
 * THE rule for state that lives longer than one call.
 *
 * What a process has been told or has done during a run (the provider's configuration and client,
 * the objects taken over and the tokens rotated this run, the objects each resource claims, lists
 * shared between reads, the once-per-process hooks and error objects) is **process state**: kept
 * here, on `globalThis` under a registered symbol, never in a module variable. Two copies of this
 * package can serve one process (two installed versions in one program's tree, a linked checkout
 * beside node_modules): module state would then be split between them, and a fact one copy
 * learned (a takeover, a rotation) would be unknown to the other, which is exactly where it
 * decides what a delete may do.
 *
 * What only caches a module's own objects (compiled zod schemas, undici connection pools, parsed
 * settings) stays module state: another copy could not use those objects anyway, and losing a
 * cache costs time, never correctness.
 */
export function processState<T>(name: string, init: () => T): T {
  const key = Symbol.for(`pulumi-mgmt.${name}`);
  const holder = globalThis as { [key: symbol]: unknown };
  if (!(key in holder)) holder[key] = init();
  return holder[key] as T;
}
