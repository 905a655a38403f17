/**
 * The APIs each resource's calls go to. Its own module, apart from serializedProvider.ts (which
 * loads the whole Pulumi SDK to serialize dynamic providers), so that the providers' `check`
 * can ask for it and still load in the plugin, which must not load the root `@pulumi/pulumi`.
 */
import type { Api } from "../api/endpoints";

/** The providers, by the name of their module under `internal/providers/` (permanent: serializedProvider.ts). */
export type ProviderName =
  "searchIndex" | "messagingBudget" | "flowControlKey" | "messagingQueue" | "messagingAccount" | "databaseBudget";

/** The APIs each resource's calls go to: the settings it cannot do without follow (its provider's check asks the same). */
export const PROVIDER_APIS: Record<ProviderName, readonly Api[]> = {
  searchIndex: ["management"],
  messagingBudget: ["management"],
  messagingAccount: ["management"],
  databaseBudget: ["management"],
  flowControlKey: ["regional"],
  messagingQueue: ["regional"],
};
