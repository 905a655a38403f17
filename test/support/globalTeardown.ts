/** Jest global teardown: the run's own Pulumi home (globalSetup.ts) goes with the run. */
import { rmSync } from "node:fs";

export default function globalTeardown(): void {
  const home = process.env.PULUMI_MGMT_TEST_HOME;
  if (home) rmSync(home, { recursive: true, force: true });
}
