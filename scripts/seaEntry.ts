/**
 * The entry of the plugin's single executable (scripts/release.ts bundles it with every module):
 * the table of modules required by computed names first, then the plugin's own main. The bundle's
 * banner makes its require() look in the table before Node's builtins.
 */
import { SEA_MODULES, SEA_MODULES_KEY } from "./seaModules";

(globalThis as Record<string, unknown>)[SEA_MODULES_KEY] = SEA_MODULES;
require("../provider/plugin/main");
