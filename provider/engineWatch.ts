/**
 * A provider process whose engine is gone stops at once. Pulumi's own plugins watch their engine
 * and exit; the Node dynamic provider's host does not, so when the CLI dies (`kill -9`, the OOM
 * killer, a driver killed alone) its provider process lives on, unowned, and a request waiting
 * out a Retry-After or a backoff would still be sent, for a run that is over: an orphan object on
 * the service. The host is started as `.../dynamic-provider/index.js <engine address>`; while the
 * engine lives its gRPC port accepts connections, and once it refuses them, this process exits.
 */
import { connect } from "node:net";
import { processState } from "./processState";

const EVERY_MS = 1000;
/** One watcher per process (process state: processState.ts). */
const watcher = () => processState("engineWatch", () => ({ watching: false }));

/**
 * The engine's address among a plugin's arguments: the last one. The CLI puts its own flags first
 * (`--logtostderr`, `-v=9`, `--logflow`, `--tracing <endpoint>`), the address after them.
 */
export function engineAddressOf(args: readonly string[]): string | undefined {
  const last = args[args.length - 1];
  return last !== undefined && /^[^-].*:\d+$/.test(last) ? last : undefined;
}

/** The engine's address if this process is a dynamic provider host (`.../dynamic-provider/index.js <engine>`). */
export function dynamicHostEngine(argv: readonly string[] = process.argv): string | undefined {
  return /dynamic-provider[\\/]index\.js$/.test(argv[1] ?? "") ? engineAddressOf(argv.slice(2)) : undefined;
}

/** Starts watching the engine, once per process, if this is a dynamic provider host. */
export function watchEngine(
  argv: readonly string[] = process.argv,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  if (watcher().watching) return;
  const address = dynamicHostEngine(argv);
  if (address !== undefined) watchEngineAt(address, exit);
}

/** Watches the engine at `host:port` (the plugin is given it as its last argument), once per process. */
export function watchEngineAt(address: string, exit: (code: number) => void = (code) => process.exit(code)): void {
  const at = address.lastIndexOf(":");
  if (watcher().watching || at < 1 || !/^\d+$/.test(address.slice(at + 1))) return;
  watcher().watching = true;
  const host = address.slice(0, at).replace(/^\[|\]$/g, "");
  const port = Number(address.slice(at + 1));
  const timer = setInterval(() => {
    const socket = connect({ host, port });
    socket.once("connect", () => socket.destroy());
    socket.once("error", (err: NodeJS.ErrnoException) => {
      socket.destroy();
      if (err.code === "ECONNREFUSED") exit(1);
    });
  }, EVERY_MS);
  timer.unref();
}
