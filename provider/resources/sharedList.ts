/**
 * One list request serves every read that arrives while it is in flight or shortly after, per
 * provider process: refreshing N resources lists once instead of fetching N times. Our own
 * writes are applied to the shared copy, so it never goes stale because of us.
 */
import { processState } from "../processState";

const FRESH_MS = 2000;

interface Entry {
  /** When the list arrived; 0 while in flight. */
  at: number;
  items: Promise<unknown[]>;
}
/** Process state (processState.ts): a write one copy of the package applies reaches every reader. */
const sharedLists = (): Map<string, Entry> => processState("sharedLists", () => new Map<string, Entry>());

export function sharedList<T>(key: string, fetch: () => Promise<T[]>): Promise<T[]> {
  const lists = sharedLists();
  let entry = lists.get(key);
  if (!entry || (entry.at > 0 && Date.now() - entry.at > FRESH_MS)) {
    const fresh: Entry = { at: 0, items: fetch() };
    fresh.items.then(
      () => (fresh.at = Date.now()),
      () => lists.get(key) === fresh && lists.delete(key),
    );
    lists.set(key, fresh);
    entry = fresh;
  }
  return entry.items as Promise<T[]>;
}

/** Applies a write we made to the shared copy, if there is one. */
export async function applyToSharedList<T>(key: string, change: (items: T[]) => void): Promise<void> {
  const entry = sharedLists().get(key);
  if (!entry) return;
  const items = (await entry.items.catch(() => undefined)) as T[] | undefined;
  if (items) change(items);
}
