#!/usr/bin/env node
/**
 * mgmt-recover [--stack NAME] [--cwd DIR]
 *
 * After a `pulumi up` that was killed mid-way: imports what its pending creates provably made or
 * took over (automation/recovery.ts `recoverPendingCreates`) and clears the rest, so that the next
 * `pulumi up` creates only what never got created. Run `pulumi cancel` first if the stack is locked.
 */
import { LocalWorkspace } from "@pulumi/pulumi/automation";
import { engineReason, pulumiCommand, recoverPendingCreates } from "../automation";
import { UserError } from "../userError";
import { exitStatus, parseCommandLine } from "./commandLine";

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    {
      options: {
        stack: { type: "string" },
        cwd: { type: "string", default: "." },
        help: { type: "boolean", short: "h" },
      },
    },
    { help: "mgmt-recover --help" },
  );
  if (values.help) {
    console.log("usage: mgmt-recover [--stack NAME] [--cwd DIR]   (the project's directory; default: the current one)");
    return;
  }
  const ws = await LocalWorkspace.create({ workDir: values.cwd, pulumiCommand: await pulumiCommand() });
  const stackName = values.stack ?? (await ws.stack())?.name;
  if (!stackName) throw new UserError("no stack selected: pass --stack NAME");
  const stack = await LocalWorkspace.selectStack(
    { stackName, workDir: values.cwd! },
    { pulumiCommand: await pulumiCommand() },
  );
  const report = await recoverPendingCreates(stack);
  for (const i of report.imported) console.log(`imported  ${i.urn}  (${i.name}, id ${i.id})`);
  for (const urn of report.cleared) console.log(`cleared   ${urn}  (never created)`);
  for (const i of report.unproven) {
    console.log(
      `left out  ${i.urn}  (an index named "${i.name}" exists, id ${i.id}, but nothing proves this run created it: if it did, set adopt: "${i.name}" on the resource)`,
    );
  }
  if (report.imported.length + report.cleared.length + report.unproven.length === 0)
    console.log("no pending creates of pulumi-mgmt resources: nothing to do");
  else console.log("now run `pulumi up`: it creates only what is still missing");
}

main().catch((err: Error) => {
  // A failed pulumi command carries its whole output: the engine's own "error: ..." line says it.
  console.error(`mgmt-recover: ${engineReason(err)}`);
  process.exit(exitStatus(err));
});
