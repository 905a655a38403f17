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

/**
 * One live object, named the same way by its create and by any later delete: what kind of object,
 * its id, and for an object reached with a token (a key, a queue) whose account that token is.
 */
export interface ObjectRef {
  kind: string;
  id: string;
  identity?: string;
}

const keyOf = (ref: ObjectRef): string => `${ref.kind}:${ref.identity ?? ""}/${ref.id}`;

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
  return ref.identity !== undefined && table().has(keyOf({ ...ref, identity: latestIdentity(ref.identity) }));
}
