// Search indexes from a list, driven from code with the Pulumi Automation API: create them,
// preview a change, apply it, refresh, and destroy, printing each result.
//
// Runs against the embedded emulator unless MGMT_BASE_URL, MGMT_USERNAME and MGMT_PASSWORD are set.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { SearchIndex } from "pulumi-mgmt";
import { mgmtStack, type MgmtConfig } from "pulumi-mgmt/automation";
import { startEmulator } from "pulumi-mgmt-emulator";

// Resource name -> index name. The resource name is the identity Pulumi tracks.
const wanted: Record<string, string> = { orders: "orders", customers: "customers", invoices: "invoices" };

async function main(): Promise<void> {
  let mgmt: MgmtConfig = {};
  let stop = async () => {};
  // This example's state is thrown away at the end: a temporary backend. With the emulator the
  // passphrase is random (nothing worth keeping is encrypted); against a real service set
  // PULUMI_CONFIG_PASSPHRASE (or pass a secretsProvider): mgmtStack refuses to guess one.
  let secrets: { passphrase?: string; offline?: boolean } = {};
  if (!process.env.MGMT_BASE_URL) {
    const emu = await startEmulator();
    const user = emu.users[0];
    mgmt = { baseUrl: emu.baseUrl, username: user.username, password: user.password };
    stop = () => emu.close();
    secrets = { passphrase: randomBytes(16).toString("hex"), offline: true };
    console.log(`using the embedded emulator at ${emu.url}`);
  } else {
    console.log(`using the service at ${process.env.MGMT_BASE_URL}`);
  }

  const backendDir = mkdtempSync(path.join(tmpdir(), "pulumi-mgmt-automation-"));
  const { stack } = await mgmtStack({
    workDir: __dirname,
    projectName: "pulumi-mgmt-automation",
    stackName: "example",
    backendDir,
    ...secrets,
    mgmt,
    program: async () => {
      const indexes = Object.entries(wanted).map(
        ([resource, name]) => new SearchIndex(resource, { name, region: "eu-west-1", type: "free" }),
      );
      return { ids: indexes.map((i) => i.id), names: indexes.map((i) => i.name) };
    },
  });

  try {
    const up = await stack.up();
    console.log(
      `up: ${up.summary.result}, ${JSON.stringify(up.summary.resourceChanges)}; indexes: ${up.outputs.names.value.join(", ")}`,
    );

    // One more index, and a rename, which happens in place (same id).
    wanted.shipments = "shipments";
    wanted.orders = "orders-v2";
    const preview = await stack.preview();
    console.log(`preview of the change: ${JSON.stringify(preview.changeSummary)}`);

    const applied = await stack.up();
    console.log(
      `up: ${applied.summary.result}, ${JSON.stringify(applied.summary.resourceChanges)}; indexes: ${applied.outputs.names.value.join(", ")}`,
    );

    const refresh = await stack.refresh();
    console.log(`refresh: ${refresh.summary.result}, ${JSON.stringify(refresh.summary.resourceChanges)}`);

    const destroy = await stack.destroy();
    console.log(`destroy: ${destroy.summary.result}, ${JSON.stringify(destroy.summary.resourceChanges)}`);
    await stack.workspace.removeStack(stack.name);
  } finally {
    rmSync(backendDir, { recursive: true, force: true });
    await stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
