/**
 * What the UrlGroup provider receives (after `check`) and what the stack stores.
 */
import { z } from "zod";
import type { Same } from "../../sameShape";
import { UrlGroupEndpoint, urlGroupName } from "../../api/urlGroupSchemas";
import { identityOutputs, region, token } from "../messagingFields";

const endpointList = z.array(UrlGroupEndpoint);

/** Each URL once and each name once: the service tells endpoints apart by either. */
const declaredEndpoints = endpointList
  .min(1, "must list at least one endpoint (a URL group without endpoints does not exist)")
  .superRefine((list, ctx) => {
    const twice = (values: (string | undefined)[]) =>
      values.filter((v, i) => v !== undefined && values.indexOf(v) !== i);
    for (const url of new Set(twice(list.map((e) => e.url))))
      ctx.addIssue({ code: "custom", message: `${url} is listed more than once; list each URL once` });
    for (const name of new Set(twice(list.map((e) => e.name))))
      ctx.addIssue({
        code: "custom",
        message: `the name ${name} is given to more than one endpoint; names are unique in a group`,
      });
  })
  .meta({
    description:
      "The endpoints this stack declares, each `{url, name?}` (http:// or https://): an `up` adds and removes exactly the difference; endpoints others add are reported on refresh and left alone.",
  });

export const UrlGroupInputs = z.object({
  region,
  token,
  group: urlGroupName.meta({
    description:
      "The group's name: letters, digits, '-', '_' and '.'. A new name is a new group (replace): the service has no rename.",
  }),
  endpoints: declaredEndpoints,
});
export type UrlGroupInputs = z.output<typeof UrlGroupInputs>;

export interface UrlGroupOutputs extends UrlGroupInputs {
  /** The account this group is managed on, or the fingerprint of its token (tokenAccount.ts). */
  managedBy?: string;
  /** Fingerprint of the token it last acted with (tokenAccount.ts). */
  tokenFingerprint?: string;
  /** True when this stack made the group: only then may destroy delete it, and only when nothing else is left in it. */
  created?: boolean;
  /** The URLs of the endpoints this stack added: destroy removes these and no others. */
  addedEndpoints?: string[];
  /** Endpoints in the group that the stack does not declare, as last read: never adopted, never removed. */
  otherEndpoints?: UrlGroupEndpoint[];
}

/** The resource's id: where the group is. */
export const urlGroupId = (i: { region: string; group: string }) => `${i.region}/${i.group}`;

/** UrlGroupOutputs as a schema, for the plugin schema (provider/plugin/schema.ts checks they agree). */
export const UrlGroupOutputsSchema = z.object({
  region: region.meta({ description: "The region of the messaging account." }),
  token: z.string().optional().meta({
    description: "The messaging token the group is managed with (default: mgmt:messagingToken).",
    secret: true,
  }),
  group: z.string().meta({ description: "The group's name." }),
  endpoints: endpointList.meta({ description: "The endpoints this stack declares, as last read." }),
  ...identityOutputs,
  created: z
    .boolean()
    .optional()
    .meta({ description: "True when this stack made the group: only then may destroy delete it." }),
  addedEndpoints: z
    .array(z.string())
    .optional()
    .meta({ description: "The URLs of the endpoints this stack added: destroy removes these and no others." }),
  otherEndpoints: endpointList
    .optional()
    .meta({ description: "Endpoints someone else added to the group, as last read: left alone." }),
});

/** The stored-output interface and its schema agree, key for key and type for type: tsc fails here when one drifts. */
export const OUTPUTS_AGREE: Same<z.infer<typeof UrlGroupOutputsSchema>, UrlGroupOutputs> = true;
