/**
 * Programmatic entry of the emulator: `startEmulator()` serves the whole API on a loopback port
 * and returns the addresses to configure and the seeded credentials.
 */
import type { SearchRegion } from "pulumi-mgmt/internal/api/schemas";
import type { FaultRuleInput } from "./controls";
import { FaultRule } from "./controls";
import { Emulator, type SeedUser } from "./server";
import { loadData } from "./state";

export { Emulator, type SeedUser } from "./server";
export type { FaultRuleInput, LoggedRequest } from "./controls";

export interface StartOptions {
  /**
   * 0 (default) picks a free port; with `dataFile`, the port the data was last served on if it is
   * free, so that a restart keeps every address a client (a stack's config) was given.
   */
  port?: number;
  host?: string;
  /** Persist state to this JSON file (atomic writes) and load it on start. */
  dataFile?: string;
  placement?: Partial<Record<SearchRegion, SearchRegion>>;
}

export interface RunningEmulator {
  /** Root of the server, e.g. http://127.0.0.1:4010 */
  url: string;
  /** What to set as mgmt:baseUrl, mgmt:messagingUrl and mgmt:regionalMessagingUrl. */
  baseUrl: string;
  messagingUrl: string;
  regionalMessagingUrl: string;
  users: SeedUser[];
  emulator: Emulator;
  /** Shorthands for the test controls, in process. */
  addFault(rule: FaultRuleInput): void;
  /** Requests to the API (not the controls) made since the last reset, optionally filtered. */
  requests(filter?: { method?: string; route?: string }): Emulator["controls"]["log"];
  resetLog(): void;
  /**
   * Resolves once every API request that arrived since the last reset, up to this call, is in the
   * log, late answers included (a client that gave up on one may already have resent it); fails
   * after `timeoutMs` (default 30 s) saying how many are still out.
   */
  settled(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startEmulator(options: StartOptions = {}): Promise<RunningEmulator> {
  const data = options.dataFile ? loadData(options.dataFile) : undefined;
  const emulator = new Emulator({ data, dataFile: options.dataFile, placement: options.placement });
  const host = options.host ?? "127.0.0.1";
  const last = options.port ? undefined : data?.port;
  await (last
    ? emulator.app.listen({ port: last, host }).catch(() => emulator.app.listen({ port: 0, host }))
    : emulator.app.listen({ port: options.port ?? 0, host }));
  const address = emulator.app.server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  if (options.dataFile) emulator.data.port = port;
  emulator.persist();
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return {
    url,
    baseUrl: url,
    messagingUrl: `${url}/messaging`,
    regionalMessagingUrl: `${url}/regional/{region}`,
    get users() {
      return emulator.users();
    },
    emulator,
    addFault: (rule) => emulator.controls.addFault(FaultRule.parse(rule)),
    requests: (filter) =>
      emulator.controls.log.filter(
        (e) => (!filter?.method || e.method === filter.method) && (!filter?.route || e.route === filter.route),
      ),
    resetLog: () => emulator.controls.resetLog(),
    settled: (timeoutMs = 30_000) => emulator.controls.allLogged(timeoutMs),
    close: () => emulator.app.close(),
  };
}
