/**
 * Inline programs of the Automation API run in the driver's process, one run after another (or
 * side by side), each talking to its own engine over gRPC. grpc-js shares connections
 * ("subchannels") per address among all clients of a process, and the SDK does not close a run's
 * clients when the run ends. A late call of a finished run to its gone engine leaves that
 * address's subchannel in reconnect backoff; when the OS later hands the same port to another
 * run's engine, that run's first call fails at once with "14 UNAVAILABLE: No connection
 * established. Last error: null". The Automation API's language server treats a gRPC error from a
 * program as a clean exit, so the engine sees a program that declared nothing: a preview or `up`
 * that reports nothing (a fresh stack), or plans to delete every resource (an existing one).
 *
 * A subchannel pool per client removes the sharing. The SDK passes one options object to every
 * engine and monitor client it creates; the SDK does not publish it, so it is reached through
 * sdkAdapter.ts (present in 3.248, absent in 3.139: there this is a no-op).
 */
import { sdkGrpcClientOptions } from "./sdkAdapter";

const LOCAL_POOL = "grpc.use_local_subchannel_pool";

/** Makes every engine and monitor client the SDK creates from now on use its own connections. Idempotent. */
export function isolateEngineConnections(): boolean {
  const options = sdkGrpcClientOptions();
  if (!options) return false;
  options[LOCAL_POOL] = 1;
  return true;
}
