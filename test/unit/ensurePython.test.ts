/**
 * scripts/ensure-python.sh: an interpreter it cannot use stops it with one line of instructions,
 * before anything is made in the cache. The environment itself is made and run by the Python proofs
 * (test/e2e/pluginProofs.test.ts).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PACKAGE_ROOT } from "../../provider/automation";

const script = path.join(PACKAGE_ROOT, "scripts/ensure-python.sh");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "ensure-python-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function run(python: string) {
  const cache = path.join(dir, "cache");
  const r = spawnSync("bash", [script], {
    encoding: "utf8",
    env: { PATH: "/usr/bin:/bin", HOME: dir, PULUMI_MGMT_CACHE: cache, PULUMI_MGMT_PYTHON: python },
  });
  return { ...r, made: readdirSync(dir).includes("cache") };
}

test("no interpreter: one line saying what to install", () => {
  const r = run(path.join(dir, "python3"));
  expect(r.status).toBe(1);
  expect(r.stderr.trim().split("\n")).toEqual([
    `[ensure-python] error: no ${path.join(dir, "python3")} >= 3.9 on PATH: install Python 3.9 or newer (or set PULUMI_MGMT_PYTHON to one)`,
  ]);
  expect(r.stdout).toBe("");
  expect(r.made).toBe(false);
});

test("an interpreter older than the SDK's requires-python: one line naming its version", () => {
  // A stand-in for Python 3.8: its version check fails, and it says which it is.
  const old = path.join(dir, "python3.8");
  writeFileSync(old, '#!/bin/sh\n[ "$1" = --version ] && { echo "Python 3.8.18"; exit 0; }\nexit 1\n');
  chmodSync(old, 0o755);
  const r = run(old);
  expect(r.status).toBe(1);
  expect(r.stderr.trim().split("\n")).toEqual([
    `[ensure-python] error: ${old} is Python 3.8.18, older than 3.9 (sdk/python's requires-python): install Python 3.9 or newer (or set PULUMI_MGMT_PYTHON to one)`,
  ]);
  expect(r.made).toBe(false);
});
