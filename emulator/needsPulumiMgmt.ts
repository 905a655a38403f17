/**
 * pulumi-mgmt is a peer of pulumi-mgmt-emulator and pulumi-mgmt-fleet, marked optional so that npm
 * never looks it up on the registry (it is installed from a tarball). Without it, their commands
 * say so in one line instead of Node's stack trace. Each cli.ts imports this first, before any
 * module that needs the peer; scripts/build.sh copies it into the fleet's package too.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

try {
  require.resolve("pulumi-mgmt/package.json");
} catch {
  // The package this copy ships in: its package.json is one folder up from dist/.
  const own = JSON.parse(readFileSync(path.join(__dirname, "..", "package.json"), "utf8")) as {
    name: string;
    bin: Record<string, string>;
    peerDependencies: Record<string, string>;
  };
  const tarball = `pulumi-mgmt-${own.peerDependencies["pulumi-mgmt"]}.tgz`;
  console.error(
    `${Object.keys(own.bin)[0]}: pulumi-mgmt is not installed beside ${own.name}: install both in the project (npm install /path/to/${tarball})`,
  );
  process.exit(1);
}
