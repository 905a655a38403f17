/**
 * The files the `mgmt` plugin runs from, beside the compiled main.js. Kept apart from install.ts so
 * that start.js, the first thing the engine runs, loads nothing else before the bundle.
 */

/** The plugin's compiled entry with everything it loads, in one file (scripts/bundlePlugin.ts). */
export const PLUGIN_BUNDLE = "main.bundle.js";
/** What the bin and the installed launchers run: the bundle through V8's code cache (start.ts). */
export const PLUGIN_ENTRY = "start.js";
