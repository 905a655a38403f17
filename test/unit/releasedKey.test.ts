/**
 * Destroying a flow control key the stack changed nothing of releases it with no call and no
 * token: no `mgmt:messagingToken` is needed to say it was released (resources/released.ts).
 */
import { flowControlKeyProvider } from "../../provider/resources/flowControlKey/provider";
import type { KeyOutputs } from "../../provider/resources/flowControlKey/schema";
import { useConfig } from "../../provider/runtime";

test("a key left as found is released with no token and no setting", async () => {
  useConfig({});
  const stored = { region: "eu-central-1", key: "tenant-a", waitListSize: 0 } as unknown as KeyOutputs;
  await expect(flowControlKeyProvider.delete!("eu-central-1/tenant-a", stored)).resolves.toBeUndefined();
});
