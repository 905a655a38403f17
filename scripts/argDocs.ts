/**
 * Writes each input's description (its zod schema's, the one place it is written: resources/
 * declare.ts) as a doc comment onto the TypeScript interfaces programs declare it with, in the
 * compiled `.d.ts` under dist/provider: what TypeScript users read in their editor is what the
 * schema and the SDKs of every other language say. Run by scripts/build.sh after the compile.
 *
 *   node dist/scripts/argDocs.js [distDir]     # default: the dist/ this file is in
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import type { z } from "zod";
import type { TypeScriptInterface } from "../provider/resources/declare";

/** What a declaration says of its inputs and where TypeScript declares them. */
export interface DocumentedInputs {
  type: string;
  inputs: z.ZodObject;
  typescript: { interfaces: readonly TypeScriptInterface[]; renamed?: Record<string, string> };
}

/**
 * Every resource's, the component's and the functions' inputs, from the compiled package in
 * `dist`. A function's TypeScript form is functions/<name>.ts, its arguments `<Name>Args` and
 * `<Name>OutputArgs` (a function only the plugin serves has no such module).
 */
export function documented(dist: string): DocumentedInputs[] {
  const load = <T>(module: string): T => require(path.join(dist, "provider", module)) as T;
  const { RESOURCES } = load<typeof import("../provider/resources/all")>("resources/all");
  const { messagingControls } = load<typeof import("../provider/plugin/component")>("plugin/component");
  const { FUNCTIONS } = load<typeof import("../provider/functions/all")>("functions/all");
  const functions = FUNCTIONS.filter(
    (f) => Object.keys(f.args.shape).length > 0 && existsSync(path.join(dist, `provider/functions/${f.name}.d.ts`)),
  ).map((f): DocumentedInputs => {
    const pascal = f.name[0].toUpperCase() + f.name.slice(1);
    const module = `functions/${f.name}`;
    return {
      type: f.name,
      inputs: f.args,
      typescript: {
        interfaces: [
          [module, `${pascal}Args`],
          [module, `${pascal}OutputArgs`],
        ],
      },
    };
  });
  return [...RESOURCES, messagingControls, ...functions];
}

/** Each input's description as the schema gives it (zod's JSON Schema, as the plugin's schema reads it). */
export function inputDescriptions(inputs: z.ZodObject): Record<string, string> {
  const { z } = require("zod") as typeof import("zod");
  const json = z.toJSONSchema(inputs, { io: "input", unrepresentable: "any", reused: "inline" }) as {
    properties?: Record<string, { description?: string }>;
  };
  return Object.fromEntries(
    Object.entries(json.properties ?? {}).flatMap(([key, p]) => (p.description ? [[key, p.description]] : [])),
  );
}

/** Per `.d.ts` file and interface, what each property may be described as (one text, unless two declarations disagree). */
type Planned = Map<string, Map<string, Map<string, Set<string>>>>;

export function plannedDocs(declarations: DocumentedInputs[]): Planned {
  const planned: Planned = new Map();
  for (const d of declarations) {
    const descriptions = inputDescriptions(d.inputs);
    const tsName = (key: string) => d.typescript.renamed?.[key] ?? key;
    for (const [module, name] of d.typescript.interfaces) {
      const file = planned.get(module) ?? new Map<string, Map<string, Set<string>>>();
      planned.set(module, file);
      const props = file.get(name) ?? new Map<string, Set<string>>();
      file.set(name, props);
      for (const [key, text] of Object.entries(descriptions))
        props.set(tsName(key), (props.get(tsName(key)) ?? new Set<string>()).add(text));
    }
  }
  return planned;
}

/** `source` (a .d.ts) with a doc comment on every planned property of its interfaces that has none. */
export function withDocs(source: string, interfaces: Map<string, Map<string, Set<string>>>, file = "x.d.ts"): string {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  const inserts: { at: number; text: string }[] = [];
  const found = new Set<string>();
  sf.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node)) return;
    const props = interfaces.get(node.name.text);
    if (!props) return;
    found.add(node.name.text);
    for (const member of node.members) {
      if (!ts.isPropertySignature(member) || !ts.isIdentifier(member.name)) continue;
      const texts = [...(props.get(member.name.text) ?? [])];
      if (texts.length > 1)
        throw new Error(
          `argDocs: ${node.name.text}.${member.name.text} is described ${texts.length} ways by the declarations sharing it: give the shared field one description`,
        );
      const text = texts[0];
      if (!text || ts.getJSDocCommentsAndTags(member).length > 0) continue;
      const indent = " ".repeat(sf.getLineAndCharacterOfPosition(member.getStart()).character);
      inserts.push({ at: member.getStart(), text: `/** ${text.replace(/\*\//g, "*\\/")} */\n${indent}` });
    }
  });
  for (const name of interfaces.keys())
    if (!found.has(name)) throw new Error(`argDocs: no interface ${name} in ${file}`);
  let out = source;
  for (const { at, text } of inserts.sort((a, b) => b.at - a.at)) out = out.slice(0, at) + text + out.slice(at);
  return out;
}

export function writeArgDocs(dist: string): number {
  let files = 0;
  for (const [module, interfaces] of plannedDocs(documented(dist))) {
    const file = path.join(dist, "provider", `${module}.d.ts`);
    const before = readFileSync(file, "utf8");
    const after = withDocs(before, interfaces, file);
    if (after !== before) {
      writeFileSync(file, after);
      files++;
    }
  }
  return files;
}

if (require.main === module) {
  const dist = path.resolve(process.argv[2] ?? path.join(__dirname, ".."));
  const files = writeArgDocs(dist);
  process.stderr.write(`[build] inputs' descriptions written onto the declarations of ${files} files\n`);
}
