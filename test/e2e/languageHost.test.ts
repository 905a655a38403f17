/**
 * Issue: foundation. The root Pulumi.yaml program runs as a normal program through the language
 * host (pulumi-language-nodejs) and TypeScript, not as an inline program.
 */
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { PACKAGE_ROOT } from "../../provider/automation";
import { testEnv, type TestEnv } from "../support/harness";

let env: TestEnv;
const stackName = `langhost-${process.pid}`;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(async () => {
  await env.cleanup();
  rmSync(path.join(PACKAGE_ROOT, `Pulumi.${stackName}.yaml`), { force: true });
});

test("the root program goes up, previews clean and is destroyed through pulumi-language-nodejs", async () => {
  const s = await env.stack({ workDir: PACKAGE_ROOT, stackName });
  const up = await s.stack.up();
  expect(up.summary.result).toBe("succeeded");
  expect(up.summary.resourceChanges).toEqual({ create: 4 });
  const names = (await env.client.listSearchIndexes()).map((i) => i.name).sort();
  expect(names).toEqual(["catalog", expect.stringMatching(/^scratch-[0-9a-f]{7}$/), "support-articles"]);
  expect(up.outputs.catalogToken.secret).toBe(true);

  env.emu.resetLog();
  expect((await s.stack.preview()).changeSummary).toEqual({ same: 4 });
  expect(env.emu.requests()).toEqual([]);

  await s.stack.destroy();
  expect(await env.client.listSearchIndexes()).toEqual([]);
  expect(existsSync(path.join(PACKAGE_ROOT, `Pulumi.${stackName}.yaml`))).toBe(true);
});
