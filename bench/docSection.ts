/**
 * docs/benchmarks.md holds the figures of more than one benchmark: each owns a section between
 * markers, and rewriting one keeps the others.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PACKAGE_ROOT } from "../provider/automation";

export const BENCHMARKS_MD = path.join(PACKAGE_ROOT, "docs/benchmarks.md");
const markers = (name: string) => [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`] as const;

/** The file's marked sections, by name, with their markers. */
function sections(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const m of text.matchAll(/<!-- ([\w-]+):start -->[\s\S]*?<!-- \1:end -->/g)) found.set(m[1], m[0]);
  return found;
}

/** Writes `body` as section `name`, keeping every other section of the file. */
export function writeSection(name: string, body: string): void {
  const old = existsSync(BENCHMARKS_MD) ? readFileSync(BENCHMARKS_MD, "utf8") : "";
  const [start, end] = markers(name);
  const block = `${start}\n${body.trim()}\n${end}`;
  const text = sections(old).has(name)
    ? old.replace(sections(old).get(name)!, block)
    : `${old.trimEnd()}\n\n${block}\n`;
  mkdirSync(path.dirname(BENCHMARKS_MD), { recursive: true });
  writeFileSync(BENCHMARKS_MD, text.trimStart());
}

/** Rewrites the whole file as `main`, keeping the marked sections other benchmarks wrote. */
export function writeMain(main: string): void {
  const old = existsSync(BENCHMARKS_MD) ? readFileSync(BENCHMARKS_MD, "utf8") : "";
  const kept = [...sections(old).values()];
  mkdirSync(path.dirname(BENCHMARKS_MD), { recursive: true });
  writeFileSync(BENCHMARKS_MD, [main.trimEnd(), ...kept].join("\n\n") + "\n");
}
