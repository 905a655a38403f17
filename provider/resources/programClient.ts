import * as pulumi from "@pulumi/pulumi";
import { MgmtClient } from "../api/client";
import { resolveSettings } from "../config";

/**
 * The client for functions that run in the Pulumi program itself (getSearchIndexes and the
 * like): the stack's `mgmt:*` config, then `MGMT_*` variables.
 */
export function programClient(): MgmtClient {
  return new MgmtClient(resolveSettings((key) => pulumi.runtime.getConfig(key)));
}
