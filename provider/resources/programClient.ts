import { MgmtClient } from "../api/client";
import { checkSettingKeys, resolveSettings, type Settings } from "../config";
import { processState } from "../processState";
import { rootSdk } from "../rootSdk";
import { apiClient } from "../runtime";

/**
 * The settings as the Pulumi program sees them: the stack's `mgmt:*` config, then `MGMT_*`
 * variables. An unknown `mgmt:*` key (a typo) is refused here, so at `preview` too. A project
 * that is itself named `mgmt` owns that namespace, and its keys are not ours to judge.
 */
export function programSettings(): Settings {
  const pulumi = rootSdk();
  if (pulumi.getProject() !== "mgmt") checkSettingKeys(Object.keys(pulumi.runtime.allConfig()));
  return resolveSettings((key) => pulumi.runtime.getConfig(key));
}

/**
 * Whose settings the functions use. In a Pulumi program, the program's (above). The `mgmt` plugin
 * serves the same functions as invokes and runs no program: there they use the provider's
 * configuration (its `Configure`, runtime.ts), which the plugin selects once (plugin/invokes.ts).
 */
const functionSettings = () => processState("functionSettings", () => ({ fromProvider: false }));

/** Called by the plugin: the functions use the provider's configuration from now on, in this process. */
export function functionsUseProviderConfig(): void {
  functionSettings().fromProvider = true;
}

/** The client for functions that run in the Pulumi program itself (getSearchIndexes and the like), or in the plugin. */
export function programClient(): MgmtClient {
  return functionSettings().fromProvider ? apiClient() : new MgmtClient(programSettings());
}
