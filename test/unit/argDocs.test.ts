/**
 * An input's description is written once, in its zod schema (resources/declare.ts): the package
 * schema (so every SDK) and the doc comment TypeScript users read in their editor (the compiled
 * `.d.ts`, where scripts/argDocs.ts writes it at build) both come from there.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { packageSchema } from "../../provider/plugin/schema";
import { messagingControls } from "../../provider/plugin/component";
import { FUNCTIONS } from "../../provider/functions/all";
import { RESOURCES } from "../../provider/resources/all";
import { inputDescriptions, withDocs } from "../../scripts/argDocs";

const DIST = path.join(__dirname, "../../dist/provider");

/** The doc comment of each property of interface `name` in the compiled `<module>.d.ts`, as an editor shows it. */
function docsOf(module: string, name: string): Record<string, string> {
  const file = path.join(DIST, `${module}.d.ts`);
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
  const docs: Record<string, string> = {};
  source.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node) || node.name.text !== name) return;
    for (const member of node.members)
      if (ts.isPropertySignature(member) && ts.isIdentifier(member.name))
        docs[member.name.text] = ts
          .getJSDocCommentsAndTags(member)
          .filter(ts.isJSDoc)
          .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? "")
          .join(" ");
  });
  return docs;
}

describe.each([...RESOURCES, messagingControls].map((d) => [d.type, d] as const))("%s", (type, declaration) => {
  const spec = packageSchema().resources[`mgmt:index:${type}`];

  test("every input a user writes has a description in the schema, its zod schema's", () => {
    const described = inputDescriptions(declaration.inputs);
    for (const key of Object.keys(spec.inputProperties)) {
      expect([key, described[key]]).toEqual([key, expect.any(String)]);
      expect(spec.inputProperties[key].description).toContain(described[key]);
    }
  });

  test("TypeScript users read the same description on every input, in the compiled declarations", () => {
    const declared: Record<string, string> = Object.assign(
      {},
      ...declaration.typescript.interfaces.map(([module, name]) => docsOf(module, name)),
    );
    const renamed: Record<string, string> =
      "renamed" in declaration.typescript ? (declaration.typescript.renamed ?? {}) : {};
    const described = inputDescriptions(declaration.inputs);
    for (const key of Object.keys(spec.inputProperties))
      expect([key, declared[renamed[key] ?? key]]).toEqual([key, described[key]]);
  });
});

describe.each(FUNCTIONS.filter((f) => Object.keys(f.args.shape).length > 0).map((f) => [f.name, f] as const))(
  "%s",
  (name, f) => {
    const spec = packageSchema().functions[`mgmt:index:${name}`];

    test("every argument has its zod schema's description in the schema", () => {
      const described = inputDescriptions(f.args);
      for (const key of Object.keys(spec.inputs!.properties)) {
        expect([key, described[key]]).toEqual([key, expect.any(String)]);
        expect(spec.inputs!.properties[key].description).toContain(described[key]);
      }
    });

    // The plugin's own functions (getSearchIndexTokens) have no TypeScript form.
    const module = `functions/${name}`;
    const pascal = name[0].toUpperCase() + name.slice(1);
    (existsSync(path.join(DIST, `${module}.d.ts`)) ? test : test.skip)(
      "TypeScript users read the same description on every argument, of both forms",
      () => {
        const described = inputDescriptions(f.args);
        for (const form of [`${pascal}Args`, `${pascal}OutputArgs`]) {
          const declared = docsOf(module, form);
          for (const key of Object.keys(spec.inputs!.properties))
            expect([form, key, declared[key]]).toEqual([form, key, described[key]]);
        }
      },
    );
  },
);

test("a field two declarations share in one interface must have one description", () => {
  const docs = new Map([["Args", new Map([["region", new Set(["one", "two"])]])]]);
  expect(() => withDocs("export interface Args {\n    region: string;\n}\n", docs)).toThrow(/described 2 ways/);
  const one = new Map([["Args", new Map([["region", new Set(["Where it runs."])]])]]);
  expect(withDocs("export interface Args {\n    region: string;\n}\n", one)).toBe(
    "export interface Args {\n    /** Where it runs. */\n    region: string;\n}\n",
  );
});
