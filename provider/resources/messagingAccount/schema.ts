/**
 * What the MessagingAccount provider receives (after `check`) and what the stack stores.
 */
import { z } from "zod";
import type { Same } from "../../sameShape";
import { MESSAGING_PLANS, type MessagingAccountRecord, type MessagingRegion, type Reported } from "../../api/schemas";
import { tokenRotation } from "../rotation";

const plans = MESSAGING_PLANS.map((p) => `"${p}"`).join(", ");

export const Inputs = z.object({
  accountId: z.string({ error: "must be a string" }).min(1, "must not be empty (give a messaging account id)").meta({
    description:
      "An existing account's id (from `getMessagingAccounts()`): the API cannot create one. Changing it replaces the resource.",
  }),
  tokenRotation: tokenRotation.optional().meta({
    description:
      "Any value (a date, a ticket number). A value the account has not seen yet replaces its tokens; the old ones stop working at once. `token` and `readOnlyToken` change in the same `up`, and resources fed from `token` act with the new one. Creating with a value does not rotate; removing it does nothing.",
  }),
  plan: z
    .enum(MESSAGING_PLANS, {
      error: (issue) =>
        issue.input === "free"
          ? `"free" cannot be set: the service has no way back to the free plan; use one of ${plans}, or leave plan out`
          : `must be one of ${plans}`,
    })
    .optional()
    .meta({
      title: "MessagingPlan",
      description:
        "`paid`, `fixed_1m`, `fixed_10m` or `fixed_100m`. `up` moves the account there; there is no way back to free, and destroy leaves the plan as it is. Left out, the plan is not this stack's.",
    }),
  prodPack: z.boolean({ error: "must be true or false" }).optional().meta({
    description:
      "Production pack on or off. Destroy (or leaving it out later) gives back the value found before this stack changed it, while the stack's value is still in place.",
  }),
  /** The Pulumi resource name, so that a conflict can name both resources. */
  resourceName: z.string().optional(),
  /** The account as `check` found it before this stack acted (before.ts). */
  before: z.object({ prodPack: z.boolean() }).optional(),
});
export type Inputs = z.infer<typeof Inputs>;

export interface MessagingAccountOutputs {
  accountId: string;
  /** Secret. */
  token: string;
  /** Secret. */
  readOnlyToken?: string;
  /** The plan as the service reports it: "free", "paid", or a fixed tier ("fixed_1m"...). */
  plan: Reported<"free" | (typeof MESSAGING_PLANS)[number]>;
  /** The production pack as the service reports it. */
  prodPack: boolean;
  type?: string;
  reservedType?: string;
  region: Reported<MessagingRegion>;
  state?: string;
  /** The production pack as found before this stack first changed it: what destroy gives back. */
  foundProdPack: boolean;
  /** The value this stack set the production pack to, when it changed it. */
  prodPackSet?: boolean;
  /** The last `tokenRotation` value acted on (or recorded at create, which does not rotate). */
  tokenRotation?: string;
  /** The identity that manages the account (identity.ts). */
  managedBy: string;
}

/** The plan an account is on, in the names `plan` takes: a fixed tier is reported in `reserved_type`. */
export function planOf(record: MessagingAccountRecord): MessagingAccountOutputs["plan"] {
  if (record.type !== "paid") return record.type ?? "free";
  const tier = /^messaging_(fixed_\w+)$/.exec(record.reserved_type ?? "")?.[1];
  return tier ?? (record.reserved_type ? record.reserved_type : "paid");
}

/**
 * MessagingAccountOutputs as a schema, for the plugin schema's outputs (provider/plugin/schema.ts;
 * tsc fails there when it and the interface disagree). `secret` marks what the resource keeps
 * secret (its additionalSecretOutputs).
 */
export const MessagingAccountOutputsSchema = z.object({
  accountId: z.string().meta({ description: "The messaging account's id." }),
  token: z.string().meta({ description: "The account's token.", secret: true }),
  readOnlyToken: z.string().optional().meta({ description: "The account's read-only token.", secret: true }),
  plan: z
    .string()
    .meta({ description: 'The plan as the service reports it: "free", "paid", or a fixed tier ("fixed_1m"...).' }),
  prodPack: z.boolean().meta({ description: "The production pack as the service reports it." }),
  type: z.string().optional(),
  reservedType: z.string().optional(),
  region: z.string().meta({ description: "The account's region, as the service reports it." }),
  state: z.string().optional(),
  foundProdPack: z
    .boolean()
    .meta({ description: "The production pack as found before this stack first changed it: what destroy gives back." }),
  prodPackSet: z
    .boolean()
    .optional()
    .meta({ description: "The value this stack set the production pack to, when it changed it." }),
  tokenRotation: z
    .string()
    .optional()
    .meta({ description: "The last `tokenRotation` value acted on (or recorded at create, which does not rotate)." }),
  managedBy: z.string().meta({ description: "The identity that manages the account." }),
});

/** The stored-output interface and its schema agree, key for key and type for type: tsc fails here when one drifts. */
export const OUTPUTS_AGREE: Same<z.infer<typeof MessagingAccountOutputsSchema>, MessagingAccountOutputs> = true;
