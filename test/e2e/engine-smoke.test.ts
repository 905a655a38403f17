/**
 * Issue: foundation. The real engine runs here offline: an inline Automation API program with a
 * trivial dynamic resource goes through up, preview, update and destroy.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { mgmtStack, type MgmtStack } from "../../provider/automation";
import { testBackend } from "../support/harness";

/** Leaves a file per operation in `dir`, so the test sees what the provider process really did. */
const markerProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs) {
    require("node:fs").writeFileSync(`${inputs.dir}/created-${inputs.value}`, "");
    return { id: `marker-${inputs.value}`, outs: inputs };
  },
  async diff(_id, olds, news) {
    return { changes: olds.value !== news.value };
  },
  async update(_id, _olds, news) {
    require("node:fs").writeFileSync(`${news.dir}/updated-to-${news.value}`, "");
    return { outs: news };
  },
  async delete(_id, props) {
    require("node:fs").writeFileSync(`${props.dir}/deleted-${props.value}`, "");
  },
};

class Marker extends pulumi.dynamic.Resource {
  declare readonly value: pulumi.Output<string>;
  constructor(name: string, args: { dir: string; value: string }) {
    super(markerProvider, name, { ...args }, {});
  }
}

describe("the Pulumi engine, offline", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "markers-"));
  let s: MgmtStack;
  let value = "one";

  beforeAll(async () => {
    s = await mgmtStack({
      ...testBackend(),
      projectName: "smoke",
      program: async () => {
        const m = new Marker("m", { dir, value });
        return { value: m.value };
      },
    });
  });

  afterAll(async () => {
    await s.stack.workspace.removeStack(s.stack.name, { force: true }).catch(() => undefined);
    rmSync(s.backendDir!, { recursive: true, force: true });
    // The SDK's temporary project folder for an inline program (automation-*): it never removes it.
    rmSync(s.stack.workspace.workDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  test("up creates, preview is clean, a changed input updates, destroy deletes", async () => {
    const up = await s.stack.up();
    expect(up.summary.resourceChanges).toEqual({ create: 2 }); // the stack and the marker
    expect(up.outputs.value.value).toBe("one");
    expect(readdirSync(dir)).toEqual(["created-one"]);

    const preview = await s.stack.preview();
    expect(preview.changeSummary).toEqual({ same: 2 });

    value = "two";
    const update = await s.stack.up();
    expect(update.summary.resourceChanges).toEqual({ same: 1, update: 1 });
    expect(existsSync(path.join(dir, "updated-to-two"))).toBe(true);

    const destroy = await s.stack.destroy();
    expect(destroy.summary.resourceChanges).toEqual({ delete: 2 });
    expect(existsSync(path.join(dir, "deleted-two"))).toBe(true);
  });
});
