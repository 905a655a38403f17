import { writeFileSync } from "node:fs";
import path from "node:path";

/**
 * A tenant list as `mgmt-fleet submit` and the driver's `--tenants` read it, written to
 * `<dir>/<name>.json`: free plan, key `key-<id>`, a pin of rate 10 (or the one given) per 60 s.
 */
export function tenantsFile(dir: string, name: string, tenants: { id: string; rate?: number }[]): string {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify(
      tenants.map((t) => ({
        id: t.id,
        plan: "free",
        flowControlKey: `key-${t.id}`,
        pin: { parallelism: 2, rate: t.rate ?? 10, period: 60 },
      })),
    ),
  );
  return file;
}
