/**
 * One field of one object, managed by one resource of a stack. The provider process serves one
 * deployment, so a second resource of the same kind claiming the same object is found at `check`:
 * a preview fails, naming both, before the two overwrite each other on every `up` and give back
 * each other's value on destroy.
 */
import type * as pulumi from "@pulumi/pulumi";
import { processState } from "../processState";
import { isUnknown } from "./validation";

/** Object to the resource that claimed it, in this process (process state: processState.ts). */
const claims = (): Map<string, string> => processState("claims", () => new Map<string, string>());

/**
 * Claims `objectId` for `resourceName` under `kind` (the resource type); a failure on `property`
 * when another resource holds it. `what` completes "both set <what>".
 */
export function claim(
  kind: string,
  property: string,
  objectId: unknown,
  resourceName: unknown,
  what: string,
): pulumi.dynamic.CheckFailure | undefined {
  if (typeof resourceName !== "string" || typeof objectId !== "string" || isUnknown(objectId)) return undefined;
  const key = `${kind}\u0000${objectId}`;
  const other = claims().get(key);
  if (other !== undefined && other !== resourceName) {
    return {
      property,
      reason: `${kind} "${resourceName}" and ${kind} "${other}" both set ${what}: declare one ${kind} per ${property === "accountId" ? "account" : "object"}`,
    };
  }
  claims().set(key, resourceName);
  return undefined;
}
