/**
 * The plugin's single executable (scripts/release.ts) serves Construct's SDK modules, which
 * constructAdapter.ts requires by computed names, from the table in scripts/seaModules.ts: each
 * name there must load the module Node.js loads by that name, and every name Construct uses must be
 * there (the release refuses to build otherwise; test/e2e/pluginRelease.test.ts runs Construct
 * from the executable).
 */
import { CONSTRUCT_MODULES } from "../../provider/plugin/constructAdapter";
import { SEA_MODULES } from "../../scripts/seaModules";

test("every module Construct requires by name is in the executable's table, and loads what Node.js loads by that name", () => {
  expect(CONSTRUCT_MODULES.filter((m) => !(m in SEA_MODULES))).toEqual([]);
  for (const [name, load] of Object.entries(SEA_MODULES)) expect(load()).toBe(require(name));
});
