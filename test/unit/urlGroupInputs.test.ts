/**
 * UrlGroup's inputs as `check` refuses them (one line per problem, naming the field), and the
 * endpoint arithmetic an `up` sends: by URL, names compared, order ignored.
 */
import { checkWith } from "../../provider/resources/validation";
import { UrlGroupInputs } from "../../provider/resources/urlGroup/schema";
import { missingFrom, sameEndpoints, urlsNotIn } from "../../provider/resources/urlGroup/endpointSets";

const reasons = (news: Record<string, unknown>) =>
  (checkWith(UrlGroupInputs, { region: "eu-central-1", group: "g", ...news }).failures ?? []).map((f) => f.reason);

test("bad names, URLs, duplicates and an empty list fail in one line each, naming the field", () => {
  expect(reasons({ endpoints: [{ url: "https://a.example.com" }] })).toEqual([]);
  expect(reasons({ group: "a/b", endpoints: [{ url: "https://a.example.com" }] })).toEqual([
    "group: URL group name may contain only letters, digits, '-', '_' and '.'",
  ]);
  expect(reasons({ endpoints: [{ url: "ftp://a.example.com" }] })).toEqual([
    "endpoints.0.url: must be an http:// or https:// URL, for example https://example.com/hook",
  ]);
  expect(
    reasons({
      endpoints: [
        { url: "https://a.example.com", name: "x" },
        { url: "https://a.example.com" },
        { url: "https://b.example.com", name: "x" },
      ],
    }),
  ).toEqual([
    "endpoints: https://a.example.com is listed more than once; list each URL once",
    "endpoints: the name x is given to more than one endpoint; names are unique in a group",
  ]);
  expect(reasons({ endpoints: [] })).toEqual([
    "endpoints: must list at least one endpoint (a URL group without endpoints does not exist)",
  ]);
  for (const r of reasons({ endpoints: [{ url: "nope" }], group: "" })) expect(r).not.toContain("\n");
});

test("what an up sends: a renamed endpoint is added again (the service sets its name), order is no change", () => {
  const present = [{ url: "https://a.example.com", name: "a" }, { url: "https://b.example.com" }];
  const wanted = [{ url: "https://c.example.com" }, { url: "https://a.example.com", name: "alpha" }];
  expect(missingFrom(present, wanted)).toEqual(wanted);
  expect(urlsNotIn(present, wanted)).toEqual(["https://b.example.com"]);
  expect(sameEndpoints(present, [...present].reverse())).toBe(true);
  expect(sameEndpoints(present, [{ url: "https://a.example.com" }, { url: "https://b.example.com" }])).toBe(false);
  // The service reads an absent name as empty.
  expect(missingFrom([{ url: "https://b.example.com", name: "" }], [{ url: "https://b.example.com" }])).toEqual([]);
});

test("a new name or region is a new group (replace); endpoints change in place", async () => {
  const { urlGroupOperations } = await import("../../provider/resources/urlGroup/operations");
  const olds = { region: "eu-central-1" as const, group: "g", endpoints: [{ url: "https://a.example.com" }] };
  const diff = (news: Partial<typeof olds>) => urlGroupOperations.diff!("id", olds, { ...olds, ...news });
  expect(await diff({ group: "h" })).toMatchObject({ changes: true, replaces: ["group"] });
  expect(await diff({ region: "us-east-1" as never })).toMatchObject({ changes: true, replaces: ["region"] });
  expect(await diff({ endpoints: [{ url: "https://b.example.com" }] })).toMatchObject({ changes: true, replaces: [] });
  expect(await diff({})).toMatchObject({ changes: false, replaces: [] });
});
