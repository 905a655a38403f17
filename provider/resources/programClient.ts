import * as pulumi from "@pulumi/pulumi";
import { MgmtClient } from "../api/client";
import { checkSettingKeys, resolveSettings, type Settings } from "../config";

/**
 * The settings as the Pulumi program sees them: the stack's `mgmt:*` config, then `MGMT_*`
 * variables. An unknown `mgmt:*` key (a typo) is refused here, so at `preview` too. A project
 * that is itself named `mgmt` owns that namespace, and its keys are not ours to judge.
 */
export function programSettings(): Settings {
  if (pulumi.getProject() !== "mgmt") checkSettingKeys(Object.keys(pulumi.runtime.allConfig()));
  return resolveSettings((key) => pulumi.runtime.getConfig(key));
}

/** The client for functions that run in the Pulumi program itself (getSearchIndexes and the like). */
export function programClient(): MgmtClient {
  return new MgmtClient(programSettings());
}
