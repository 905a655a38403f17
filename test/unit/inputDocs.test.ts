/**
 * The plugin's input descriptions are the TypeScript declarations' doc comments (issue 37 item 3):
 * provider/plugin/inputDocs.ts is what scripts/inputDocs.ts reads from them now, and every input
 * of every resource in the schema has one.
 */
import { inputDocs } from "../../scripts/inputDocs";
import { INPUT_DOCS } from "../../provider/plugin/inputDocs";
import { packageSchema } from "../../provider/plugin/schema";

test("provider/plugin/inputDocs.ts is what the declarations' doc comments say (else: npm run gen:input-docs)", () => {
  expect(INPUT_DOCS).toEqual(inputDocs());
});

test("every input of every resource and of the component has a description, the doc comment TypeScript users read", () => {
  const schema = packageSchema();
  const missing: string[] = [];
  for (const [type, spec] of Object.entries(schema.resources)) {
    const name = type.split(":")[2];
    for (const [key, prop] of Object.entries(spec.inputProperties)) {
      if (!prop.description) missing.push(`${name}.${key}`);
      else if (INPUT_DOCS[name]?.[key]) expect(prop.description).toBe(INPUT_DOCS[name][key]);
    }
  }
  expect(missing).toEqual([]);
  expect(schema.resources["mgmt:index:SearchIndex"].inputProperties.adopt.description).toMatch(
    /^Take over an existing index/,
  );
});
