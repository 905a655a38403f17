/**
 * **assumed** URL groups (the API's topics, contract "Schedules, URL groups and signing keys"):
 * the group's name, its endpoints, the bodies that add and remove them, and the record read back.
 */
import { z } from "zod";

/**
 * A group's name travels as a path segment, as queue names do. **assumed**: 1 to 128 letters,
 * digits, `-`, `_` and `.`, not `.` or `..` (the service's clients name groups this way).
 */
export const URL_GROUP_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
export const urlGroupName = z
  .string({ error: "must be a string" })
  .min(1, "URL group name must not be empty")
  .max(128, "URL group name must be at most 128 characters")
  .regex(URL_GROUP_NAME_PATTERN, "URL group name may contain only letters, digits, '-', '_' and '.'")
  .refine((s) => s !== "." && s !== "..", "URL group name must not be '.' or '..'");

const isHttpUrl = (s: string) => {
  try {
    const u = new URL(s);
    return (u.protocol === "http:" || u.protocol === "https:") && u.host !== "";
  } catch {
    return false;
  }
};

/** Where a group delivers: an http:// or https:// address. */
export const endpointUrl = z
  .string({ error: "must be a string" })
  .refine(isHttpUrl, "must be an http:// or https:// URL, for example https://example.com/hook");

export const endpointName = z
  .string({ error: "must be a string" })
  .min(1, "must not be empty")
  .max(128, "must be at most 128 characters");

/** One endpoint as a request sends it: `name` optional. */
export const UrlGroupEndpoint = z.object({ url: endpointUrl, name: endpointName.optional() });
export type UrlGroupEndpoint = z.infer<typeof UrlGroupEndpoint>;

/** **assumed** add endpoints (the group is made with its first): `{"endpoints": [{url, name?}]}`. */
export const AddEndpointsBody = z.object({ endpoints: z.array(UrlGroupEndpoint).min(1, "must list at least one") });
export type AddEndpointsBody = z.infer<typeof AddEndpointsBody>;

/** **assumed** remove endpoints: each one named by its `url` or its `name`. */
export const RemoveEndpointsBody = z.object({
  endpoints: z
    .array(
      z
        .object({ url: z.string().optional(), name: z.string().optional() })
        .refine((e) => e.url !== undefined || e.name !== undefined, "give url or name"),
    )
    .min(1, "must list at least one"),
});
export type RemoveEndpointsBody = z.infer<typeof RemoveEndpointsBody>;

/** **assumed** a group as read (get and list); an endpoint's name may be empty or absent. */
export const UrlGroupRecord = z.looseObject({
  name: z.string({ error: "is missing" }).min(1, "is empty"),
  createdAt: z.number().int().optional(),
  updatedAt: z.number().int().optional(),
  endpoints: z.array(z.looseObject({ url: z.string(), name: z.string().optional() })).default([]),
});
export type UrlGroupRecord = z.output<typeof UrlGroupRecord>;
