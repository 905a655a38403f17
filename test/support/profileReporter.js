/**
 * The Jest reporter of `npm run test:profile`: per test file and per test, the time taken and the
 * Pulumi engine operations run (from the log the CLI shim writes, scripts/test-profile.sh), the
 * slowest first. Engine runs set the suite's time on 2 cores, not assertions.
 */
const { readFileSync, writeFileSync } = require("node:fs");
const path = require("node:path");

const OPS = ["up", "preview", "refresh", "destroy", "import"];

/** up, preview, refresh, destroy, import; a refresh preview counts as a refresh; anything else as "other". */
function classify(args) {
  const verb = args.find((a) => !a.startsWith("-"));
  return OPS.includes(verb) ? verb : "other";
}

class ProfileReporter {
  constructor(globalConfig) {
    this.root = globalConfig.rootDir;
    this.tests = new Map(); // file \u0000 name -> { ms }
    this.files = new Map(); // file -> ms
  }

  onTestFileResult(test, result) {
    const file = path.relative(this.root, test.path);
    this.files.set(file, result.perfStats.end - result.perfStats.start);
    for (const r of result.testResults) this.tests.set(`${file}\u0000${r.fullName}`, { ms: r.duration ?? 0 });
  }

  onRunComplete() {
    const logFile = process.env.PULUMI_MGMT_PROFILE_LOG;
    const ops = new Map(); // key -> counts
    const count = (key, op) => {
      const c = ops.get(key) ?? Object.fromEntries([...OPS, "other"].map((o) => [o, 0]));
      c[op]++;
      ops.set(key, c);
    };
    let lines = [];
    try {
      lines = readFileSync(logFile, "utf8").split("\n").filter(Boolean);
    } catch {
      // no CLI ran
    }
    for (const line of lines) {
      const [file, test, ...args] = line.split("\t");
      const rel = file ? path.relative(this.root, file) : "(outside a test file)";
      const op = classify(args);
      count(`${rel}\u0000${test}`, op);
      count(rel, op);
    }
    const fmt = (c) =>
      OPS.map((o) => String(c?.[o] ?? 0).padStart(o.length)).join(" ") + " " + String(c?.other ?? 0).padStart(5);
    const engine = (c) => (c ? OPS.reduce((n, o) => n + c[o], 0) : 0);
    const out = [];
    const total = [...this.files.values()].reduce((a, b) => a + b, 0);
    out.push(
      `\ntest profile: ${this.files.size} files, ${(total / 1000).toFixed(0)} s of file time over Jest's workers, ${lines.length} CLI commands`,
    );
    out.push(`${"s".padStart(7)}  ${OPS.join(" ")} other  file / test`);
    for (const [file, ms] of [...this.files].sort((a, b) => b[1] - a[1])) {
      out.push(`${(ms / 1000).toFixed(1).padStart(7)}  ${fmt(ops.get(file))}  ${file}`);
      const tests = [...this.tests].filter(([k]) => k.startsWith(`${file}\u0000`)).sort((a, b) => b[1].ms - a[1].ms);
      for (const extra of ["(beforeAll)", "(afterAll)"]) {
        const c = ops.get(`${file}\u0000${extra}`);
        if (c) out.push(`${"".padStart(7)}  ${fmt(c)}    ${extra}`);
      }
      for (const [k, t] of tests) {
        const c = ops.get(k);
        const name = k.slice(file.length + 1);
        out.push(
          `${(t.ms / 1000).toFixed(1).padStart(7)}  ${fmt(c)}    ${name.length > 110 ? `${name.slice(0, 107)}...` : name}`,
        );
      }
    }
    const sum = [...this.files.keys()].reduce((n, f) => n + engine(ops.get(f)), 0);
    out.push(`engine operations in all: ${sum}`);
    const text = out.join("\n");
    process.stdout.write(`${text}\n`);
    if (process.env.PULUMI_MGMT_PROFILE_OUT) writeFileSync(process.env.PULUMI_MGMT_PROFILE_OUT, `${text}\n`);
  }
}

module.exports = ProfileReporter;
