/**
 * Objects a create took over in this run, so that a delete later in the same run releases them
 * instead of giving anything back.
 *
 * Renaming a resource (or the component around it) in code without an alias gives it a new URN:
 * Pulumi creates the new resource, then deletes the old one at the end of the same `up`. Keys,
 * queues, budgets and adopted indexes are taken over rather than created, so the new resource
 * takes over the live object first, and the old one's delete would then undo the stack's pause,
 * pin or budget, or delete the queue or index, under the new resource's feet. A create-before-
 * delete replacement has the same order.
 *
 * Both steps run in the one provider process the engine starts per run, which is what makes this
 * table a proof: the object named here was claimed by another resource of this very stack during
 * this very run. Process state (processState.ts).
 */
import { processState } from "../processState";
import { latestIdentity } from "./identity";

const table = (): Set<string> => processState("takenOverThisRun", () => new Set<string>());

/** One live object, named the same way by its create and by any later delete. */
export type ObjectRef =
  | { kind: "search index"; id: string }
  | { kind: "messaging budget" | "messaging account"; accountId: string }
  | { kind: "database budget"; databaseId: string }
  | { kind: "flow control key" | "queue"; identity: string | undefined; region: string; name: string };

function keyOf(ref: ObjectRef): string {
  switch (ref.kind) {
    case "search index":
      return `${ref.kind}:${ref.id}`;
    case "messaging budget":
    case "messaging account":
      return `${ref.kind}:${ref.accountId}`;
    case "database budget":
      return `${ref.kind}:${ref.databaseId}`;
    default:
      return `${ref.kind}:${ref.identity ?? ""}/${ref.region}/${ref.name}`;
  }
}

/** A create took `ref` over: any delete of it later in this run belongs to a resource that was renamed or replaced. */
export function recordTakeover(ref: ObjectRef): void {
  table().add(keyOf(ref));
}

/**
 * True when a resource of this run took `ref` over: a delete then releases it, and gives nothing
 * back. A key or queue recorded under a token this run rotated is found under the new token too.
 */
export function takenOverThisRun(ref: ObjectRef): boolean {
  if (table().has(keyOf(ref))) return true;
  return (
    "identity" in ref &&
    ref.identity !== undefined &&
    table().has(keyOf({ ...ref, identity: latestIdentity(ref.identity) }))
  );
}
