/**
 * The built `mgmt` plugin (dist/provider/plugin/start.js running main.bundle.js, what the bin and the installed
 * launcher run) as a child process, and its gRPC calls
 * as promises: what the plugin's unit tests drive.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { PLUGIN_ENTRY } from "../../provider/plugin/install";

export const PLUGIN_MAIN = path.resolve(__dirname, "../../dist/provider/plugin", PLUGIN_ENTRY);

const children: ChildProcess[] = [];
/** Ends every plugin process this test file started (call from afterAll). */
export function stopPlugins(): void {
  children.forEach((c) => c.kill());
}

/**
 * Starts the plugin with `args`, environment `env` (the test's own by default), from `main` (this
 * checkout's build by default); resolves once it printed its port.
 */
export function startPlugin(
  args: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
  main: string = PLUGIN_MAIN,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [main, ...args], { stdio: ["ignore", "pipe", "inherit"], env });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.once("data", (chunk: Buffer) => resolve({ child, port: Number(String(chunk).trim()) }));
    child.once("exit", (code) => reject(new Error(`plugin exited ${code}`)));
  });
}

/** Spawns any node script, tracked like the plugin (stopped by stopPlugins). */
export function track(child: ChildProcess): ChildProcess {
  children.push(child);
  return child;
}

export function pluginClient(port: number): ResourceProviderClient {
  return new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
}

/** A gRPC call as a promise. */
export const promised = <Res>(f: (cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown) =>
  new Promise<Res>((resolve, reject) => f((err, res) => (err ? reject(err) : resolve(res))));
