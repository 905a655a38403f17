/**
 * What a fleet worker (and the tenants driver) checks and writes before its runs: every setting it
 * needs, said at start in one line (not a failed attempt per job), and a tenant folder's project
 * file that names the plugin by an absolute path and the database without its password.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ProjectSettings, Workspace } from "@pulumi/pulumi/automation";
import { backendUrlForDisk } from "../../provider/automation/stack";
import { serviceFromEnv } from "../../fleet/serviceEnv";
import { useTenantPlugin } from "../../fleet/tenantResources";

const SERVICE = {
  MGMT_BASE_URL: "http://127.0.0.1:1",
  MGMT_USERNAME: "u",
  MGMT_PASSWORD: "p",
  MGMT_MESSAGING_URL: "http://127.0.0.1:2",
  MGMT_REGIONAL_MESSAGING_URL: "http://127.0.0.1:3",
  MGMT_MESSAGING_TOKEN: "t",
};

test("a worker without PULUMI_CONFIG_PASSPHRASE is refused at start, in one line with whatever else is missing", () => {
  expect(() => serviceFromEnv({ ...SERVICE }, { passphrase: true })).toThrow(
    /^set PULUMI_CONFIG_PASSPHRASE \(or PULUMI_CONFIG_PASSPHRASE_FILE\): the passphrase of the tenant stacks' secrets/,
  );
  expect(() => serviceFromEnv({ MGMT_BASE_URL: "http://x" }, { passphrase: true })).toThrow(
    /^set MGMT_USERNAME, MGMT_PASSWORD, MGMT_MESSAGING_URL, MGMT_REGIONAL_MESSAGING_URL, MGMT_MESSAGING_TOKEN, PULUMI_CONFIG_PASSPHRASE \(/,
  );
  // An empty passphrase is one, and a file is as good.
  expect(serviceFromEnv({ ...SERVICE, PULUMI_CONFIG_PASSPHRASE: "" }, { passphrase: true }).baseUrl).toBe(
    SERVICE.MGMT_BASE_URL,
  );
  expect(serviceFromEnv({ ...SERVICE, PULUMI_CONFIG_PASSPHRASE_FILE: "/p" }, { passphrase: true }).username).toBe("u");
  // Without the option (a caller with its own secrets provider), no passphrase is asked for.
  expect(serviceFromEnv({ ...SERVICE }).messagingToken).toBe("t");
});

test("a backend address goes to disk without a password, in its user part or as a parameter; others unchanged", () => {
  expect(backendUrlForDisk("postgres://fleet:pw@db.internal:5432/pulumi?sslmode=require")).toBe(
    "postgres://fleet@db.internal:5432/pulumi?sslmode=require",
  );
  expect(backendUrlForDisk("postgresql://db/pulumi?user=fleet&password=pw&sslmode=disable")).toBe(
    "postgresql://db/pulumi?user=fleet&sslmode=disable",
  );
  for (const kept of [
    "postgres://fleet@db/pulumi",
    "file:///var/state",
    "s3://bucket/state?region=eu-west-1",
    "not a url",
  ])
    expect(backendUrlForDisk(kept)).toBe(kept);
});

test("a tenant folder's project file names the plugin by an absolute path, and an earlier one's database password is dropped", async () => {
  const root = mkdtempSync(path.join(tmpdir(), "worker-setup-"));
  try {
    let settings: ProjectSettings & { plugins?: { providers?: { name: string; path: string }[] } } = {
      name: "tenants",
      runtime: "nodejs",
      backend: { url: "postgres://fleet:pw@db/pulumi" },
    };
    let saves = 0;
    const workspace = {
      projectSettings: async () => settings,
      saveProjectSettings: async (s: typeof settings) => {
        settings = s;
        saves++;
      },
    } as unknown as Workspace;
    // A work folder given relative to the current one (`mgmt-fleet worker --work-dir w1`).
    await useTenantPlugin(workspace, path.relative(process.cwd(), path.join(root, "t1")));
    expect(settings.plugins?.providers).toEqual([{ name: "mgmt", path: path.join(root, "t1", ".mgmt-plugin") }]);
    expect(settings.backend?.url).toBe("postgres://fleet@db/pulumi");
    await useTenantPlugin(workspace, path.join(root, "t1"));
    expect(saves).toBe(1); // nothing more to change
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
