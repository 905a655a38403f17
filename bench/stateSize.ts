/**
 * Bytes of search index entries in the checkpoint file the engine wrote for a stack (secrets as
 * ciphertext), split into the serialized provider (inputs and outputs), the other inputs and
 * outputs, and the source position and stack trace the Pulumi SDK records for every resource.
 * Shared by the benchmark and the test that holds the sizes to their limits.
 */
import { readFileSync } from "node:fs";

/** Issue 37's target for a search index's entry through the plugin, in bytes (1.9 KB). */
export const STATE_TARGET_BYTES = 1900;

export interface StateSplit {
  total: number;
  provider: number;
  inputs: number;
  outputs: number;
  sourceTrace: number;
}

interface Entry {
  type: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  sourcePosition?: unknown;
  stackTrace?: unknown;
}

/** The stack's checkpoint among a file:// backend's files (not its backups). */
export function checkpointFile(backendFiles: string[]): string {
  const checkpoint = backendFiles.find((f) => /\.pulumi\/stacks\/.*\.json$/.test(f) && !f.includes(".bak"));
  if (!checkpoint) throw new Error("no checkpoint file among the backend's files");
  return checkpoint;
}

/** The average over the search indexes `pick` selects, from a file:// backend's files. */
export function searchIndexStateSplit(
  backendFiles: string[],
  pick: (outputs: Record<string, unknown>) => boolean = () => true,
): StateSplit {
  return stateSplit(backendFiles, ":SearchIndex", pick);
}

/** The same for the resources whose type ends with `typeSuffix` (the benchmark's baseline, `:Sleep`). */
export function stateSplit(
  backendFiles: string[],
  typeSuffix: string,
  pick: (outputs: Record<string, unknown>) => boolean = () => true,
): StateSplit {
  const entries = (
    JSON.parse(readFileSync(checkpointFile(backendFiles), "utf8")).checkpoint.latest.resources as Entry[]
  ).filter((r) => r.type.endsWith(typeSuffix) && pick(r.outputs));
  if (entries.length === 0) throw new Error(`no ${typeSuffix} resource in the checkpoint`);
  const size = (v: unknown) => (v === undefined ? 0 : JSON.stringify(v).length);
  const without = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).filter(([k]) => k !== "__provider"));
  const avg = (f: (e: Entry) => number) => Math.round(entries.reduce((sum, e) => sum + f(e), 0) / entries.length);
  return {
    total: avg(size),
    provider: avg((e) => size(e.inputs.__provider) + size(e.outputs.__provider)),
    inputs: avg((e) => size(without(e.inputs))),
    outputs: avg((e) => size(without(e.outputs))),
    sourceTrace: avg((e) => size(e.sourcePosition) + size(e.stackTrace)),
  };
}
