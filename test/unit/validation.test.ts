import { z } from "zod";
import * as pulumi from "@pulumi/pulumi";
import { checkWith, schemaFor } from "../../provider/resources/validation";

const UNKNOWN = pulumi.runtime.unknownValue;

const Inputs = z.object({ name: z.string().min(1), size: z.enum(["s", "m"]) });

describe("checkWith", () => {
  it("names the field and the allowed values", () => {
    const result = checkWith(Inputs, { name: "a", size: "xl" });
    expect(result.failures).toEqual([{ property: "size", reason: expect.stringMatching(/^size: .*"s".*"m"/) }]);
  });

  it("leaves a value unknown at preview to be checked when it is known", () => {
    expect(checkWith(Inputs, { name: UNKNOWN, size: "s" }).failures).toBeUndefined();
    expect(checkWith(Inputs, { name: UNKNOWN, size: "xl" }).failures?.map((f) => f.property)).toEqual(["size"]);
  });

  // A schema made per call is compiled by zod again on its first parse: checking 200 resources
  // spent most of its time there (npm run bench:shape's profile).
  it("builds one schema per set of unknown fields, not one per call", () => {
    expect(schemaFor(Inputs, new Set())).toBe(Inputs);
    const first = schemaFor(Inputs, new Set(["size", "name"]));
    expect(first).not.toBe(Inputs);
    expect(schemaFor(Inputs, new Set(["name", "size"]))).toBe(first);
    expect(schemaFor(Inputs, new Set(["name"]))).not.toBe(first);
  });
});
