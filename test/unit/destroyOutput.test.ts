/**
 * What the main job shows of the engine's `destroy` output (scripts/destroyOutput.ts): no outputs
 * of what was just deleted, no "unchanged" count beside the deleted one, no `pulumi stack rm`.
 */
import { destroyOutput } from "../../scripts/destroyOutput";

test("the summary says what was deleted, not the same resources again as unchanged", () => {
  let shown = "";
  const out = destroyOutput((text) => (shown += text));
  const engine = [
    "Destroying (dev):",
    "    pulumi:pulumi:Stack mgmt-dev running",
    "    mgmt:index:FlowControlKey tenant-demo 1 unchanged",
    "Outputs:",
    '  - catalogEndpoint: "https://catalog-1.example"',
    "",
    "Resources:",
    "    - 8 deleted",
    "    8 unchanged",
    "",
    "Duration: 3s",
    "",
    "The resources in the stack have been deleted, but the history and configuration associated with the stack are still maintained.",
    "If you want to remove the stack completely, run `pulumi stack rm dev`.",
  ].join("\n");
  // In chunks that split lines, as the engine's output arrives.
  for (let i = 0; i < engine.length; i += 17) out.onOutput(engine.slice(i, i + 17));
  out.end();
  expect(shown).toContain("    - 8 deleted\n");
  expect(shown).not.toMatch(/^\s+8 unchanged$/m);
  expect(shown).toContain("Duration: 3s");
  // A progress line's own words are not the summary's.
  expect(shown).toContain("mgmt:index:FlowControlKey tenant-demo 1 unchanged");
  expect(shown).not.toMatch(/catalogEndpoint|stack rm/);
});
