/**
 * The cap the tenants' runs put on Pulumi's log folder (fleet/cliLogs.ts) never overrides an
 * operator's own. That the CLI honours it, and that converge passes it, is shown through the
 * engine in test/e2e/tenantRuns.test.ts.
 */
import { LOG_CAP_ENV, TENANT_RUN_LOGS_MB, tenantRunLogCap } from "../../fleet/cliLogs";

test("the tenants' runs cap Pulumi's log folder unless the operator set a cap", () => {
  expect(tenantRunLogCap({})).toEqual({ [LOG_CAP_ENV]: String(TENANT_RUN_LOGS_MB) });
  expect(tenantRunLogCap({ [LOG_CAP_ENV]: "200" })).toEqual({});
});
