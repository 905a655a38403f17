/**
 * Every resource the package serves, through both doors: the one list the plugin's tables, the
 * schema, the program's settings check, the recovery's takeover table and the permanent modules
 * derive from. Adding a resource is a folder with its declaration, and a line here
 * (CONTRIBUTING.md, "Adding a resource").
 */
import { databaseBudget } from "./databaseBudget/declaration";
import type { ResourceDeclaration } from "./declare";
import { flowControlKey } from "./flowControlKey/declaration";
import { messagingAccount } from "./messagingAccount/declaration";
import { messagingBudget } from "./messagingBudget/declaration";
import { messagingQueue } from "./messagingQueue/declaration";
import { messagingSigningKeys } from "./messagingSigningKeys/declaration";
import { messagingSchedule } from "./messagingSchedule/declaration";
import { searchIndex } from "./searchIndex/declaration";
import { urlGroup } from "./urlGroup/declaration";

export const RESOURCES = [
  searchIndex,
  messagingAccount,
  messagingBudget,
  databaseBudget,
  flowControlKey,
  messagingQueue,
  messagingSigningKeys,
  urlGroup,
  messagingSchedule,
] as const satisfies readonly ResourceDeclaration[];

/** The permanent module names under `internal/providers/` (dynamicDoor.ts). */
export type ProviderName = (typeof RESOURCES)[number]["module"];

/** The declaration of a resource, by its type name; undefined for a type the package does not serve. */
export function resourceOfType(type: string): ResourceDeclaration | undefined {
  return RESOURCES.find((r) => r.type === type);
}
