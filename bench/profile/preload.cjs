// Loaded into every Node process of a profiled run (NODE_OPTIONS=--require): V8's sampling profiler
// from the start, its profile written on exit, SIGINT or SIGTERM (how the engine stops a provider
// host), since `--cpu-prof` is not allowed in NODE_OPTIONS and would not survive a signal.
const inspector = require("node:inspector");
const fs = require("node:fs");
const path = require("node:path");

const dir = process.env.PULUMI_MGMT_PROFILE_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.start");
  let written = false;
  const write = () => {
    if (written) return;
    written = true;
    session.post("Profiler.stop", (err, result) => {
      if (err || !result) return;
      const script = process.argv[1] ? path.relative(process.cwd(), process.argv[1]) : "node";
      const meta = { script, pid: process.pid };
      fs.writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify({ ...result.profile, meta }));
    });
  };
  process.on("exit", write);
  for (const signal of ["SIGINT", "SIGTERM"])
    process.on(signal, () => {
      write();
      process.exit(0);
    });
}
