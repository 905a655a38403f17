/**
 * A stack as a scenario drives it, whichever way the engine's calls reach this package's code:
 * through the real engine and the dynamic resources (an inline program), or through the providers
 * without the engine (providerRun.ts), by the `mgmt` plugin's gRPC calls or by the dynamic
 * resources' modules. A scenario that guards a promise is written once and runs through each front
 * door: the door is a parameter of the test, not a copy of it (issue 37 item 8).
 *
 * Types are the dynamic resources' (`pulumi-nodejs:dynamic/mgmt:<Name>`) whichever the door, and
 * changes count this package's resources only (not the engine's stack, providers or components).
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { mgmtConfigMap, type MgmtConfig } from "../../provider/automation";
import { declaring, exported, type TestEnv } from "./harness";
import { ProviderStack, type Changes, type FrontDoor } from "./providerRun";

export interface DrivenStack {
  /** `refresh`: read every resource first, as `up --refresh` does. */
  up(options?: { refresh?: boolean }): Promise<Changes>;
  preview(): Promise<Changes>;
  /** A refresh under the stack's config now (through the engine: `refresh --run-program`, which applies it). */
  refresh(): Promise<void>;
  destroy(): Promise<void>;
  /** The stack's `mgmt:*` config from now on (merged into the test environment's). */
  configure(settings: MgmtConfig): Promise<void>;
  ids(type: string): Promise<(string | undefined)[]>;
  outputs(type: string): Promise<Record<string, unknown>[]>;
}

export type Opening = (
  program: () => void,
  options?: { stackName?: string; mgmt?: MgmtConfig },
) => Promise<DrivenStack>;

const OURS = "pulumi-nodejs:dynamic/mgmt:";

/** Our resources' steps in an engine run's events, by operation. */
function stepCounter(): { onEvent: (e: EngineEvent) => void; changes: Changes } {
  const changes: Changes = {};
  return {
    changes,
    onEvent(e) {
      const step = e.resourcePreEvent?.metadata;
      if (step?.type.startsWith(OURS)) changes[step.op] = (changes[step.op] ?? 0) + 1;
    },
  };
}

/** Through the real engine: an inline program of the dynamic resources. */
export const throughEngine =
  (env: TestEnv): Opening =>
  async (program, options = {}) => {
    const s = await env.stack({ ...options, program: async () => declaring(program) });
    return {
      async up(o = {}) {
        const steps = stepCounter();
        await s.up({ ...o, onEvent: steps.onEvent });
        return steps.changes;
      },
      async preview() {
        const steps = stepCounter();
        await s.stack.preview({ onEvent: steps.onEvent });
        return steps.changes;
      },
      refresh: async () => void (await s.refresh({ runProgram: true })),
      destroy: async () => void (await s.destroy({ runProgram: true })),
      configure: (settings) => s.stack.setAllConfig(mgmtConfigMap({ ...env.mgmt, ...options.mgmt, ...settings })),
      ids: async (type) => (await exported(s, type)).map((r) => r.id),
      outputs: async (type) => (await exported(s, type)).map((r) => (r.outputs ?? {}) as Record<string, unknown>),
    };
  };

/** Through the providers without the engine, by the front door given. */
export const throughProviders =
  (env: TestEnv, door: FrontDoor): Opening =>
  async (program, options = {}) => {
    const s = new ProviderStack({ ...env.mgmt, ...options.mgmt }, door);
    return {
      up: async (o = {}) => {
        if (o.refresh) await s.refresh();
        return s.up(program);
      },
      preview: () => s.preview(program),
      refresh: () => s.refresh(),
      destroy: async () => void (await s.destroy()),
      configure: async (settings) => s.configure({ ...env.mgmt, ...options.mgmt, ...settings }),
      ids: async (type) => s.ids(type),
      outputs: async (type) => s.outputs(type),
    };
  };

/** The ways a promise's scenario runs: the engine with the dynamic resources, and the plugin's calls. */
export const frontDoors = (env: () => TestEnv): [string, Opening][] => [
  ["the engine and the dynamic resources", (program, options) => throughEngine(env())(program, options)],
  ["the mgmt plugin's calls", (program, options) => throughProviders(env(), "plugin")(program, options)],
];
