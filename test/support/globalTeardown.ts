/** Jest global teardown: the run's own Pulumi home and its stacks' backends (globalSetup.ts) go with the run. */
import { rmSync } from "node:fs";

export default function globalTeardown(): void {
  for (const dir of [process.env.PULUMI_MGMT_TEST_HOME, process.env.PULUMI_MGMT_TEST_STATES])
    if (dir) rmSync(dir, { recursive: true, force: true });
}
