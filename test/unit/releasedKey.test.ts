/**
 * Destroying a flow control key the stack changed nothing of releases it with no call and no
 * token: no `mgmt:messagingToken` is needed to say it was released (resources/released.ts).
 */
import { flowControlKeyOperations } from "../../provider/resources/flowControlKey/operations";
import type { KeyOutputs } from "../../provider/resources/flowControlKey/schema";
import { useConfig } from "../../provider/runtime";

test("a key left as found is released with no token and no setting", async () => {
  useConfig({});
  const stored = { region: "eu-central-1", key: "tenant-a", waitListSize: 0 } as unknown as KeyOutputs;
  await expect(flowControlKeyOperations.delete!("eu-central-1/tenant-a", stored)).resolves.toBeUndefined();
});
