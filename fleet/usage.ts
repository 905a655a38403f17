/**
 * mgmt-fleet's commands: what each takes and what `mgmt-fleet <command> --help` prints. The parser
 * (cli.ts) accepts, per command, exactly the options its help lists, so a user never passes an
 * option a command ignores, and a refusal's `--help` lists the option it names.
 */
import type { ParseArgsConfig } from "node:util";

type Option = { help: string; parse: NonNullable<ParseArgsConfig["options"]>[string] };

const OPTIONS = {
  wait: {
    help: "  --wait               wait until every job has ended, then print the table (exit 1 if any failed)",
    parse: { type: "boolean", default: false },
  },
  "max-attempts": {
    help: "  --max-attempts N     attempts per job for transient failures (1-25, default 5)",
    parse: { type: "string", default: "5" },
  },
  concurrency: {
    help: "  --concurrency N      updates at a time (1-64, default 4)",
    parse: { type: "string", default: "4" },
  },
  "work-dir": {
    help: "  --work-dir DIR       a folder per stack under DIR (default ./.fleet)",
    parse: { type: "string", default: ".fleet" },
  },
  "lock-wait": {
    help: `  --lock-wait SECONDS  how long a run waits for a Pulumi lock that is not a dead fleet run's
                       (a person's \`pulumi up\`; never broken) before failing (default 300)`,
    parse: { type: "string", default: "300" },
  },
  json: { help: "  --json               the rows as JSON", parse: { type: "boolean", default: false } },
  database: {
    help: `  --database URL       the fleet's PostgreSQL (postgres://...); else MGMT_FLEET_DATABASE_URL,
                       else a postgres:// PULUMI_BACKEND_URL`,
    parse: { type: "string" },
  },
} as const satisfies Record<string, Option>;

export type OptionName = keyof typeof OPTIONS;

type Command = {
  synopsis: string;
  /** Its line in `mgmt-fleet --help`. */
  summary: string;
  /** The first line of its own --help. */
  about: string;
  /** The one positional argument it takes, if any. */
  positional?: string;
  options: readonly OptionName[];
  notes?: string;
};

const COMMANDS = {
  submit: {
    synopsis: "submit <tenants.json> [--wait]",
    summary: "one converge job per tenant",
    about: "one converge job per tenant (a tenant still queued gets the newer desired state)",
    positional: "<tenants.json>",
    options: ["wait", "max-attempts", "database"],
  },
  worker: {
    synopsis: "worker [--concurrency 4]",
    summary: "run jobs until SIGTERM/SIGINT",
    about: "runs jobs until SIGTERM or SIGINT (running updates are cancelled gracefully)",
    options: ["concurrency", "work-dir", "lock-wait", "database"],
    notes: `  needs the service (MGMT_BASE_URL, MGMT_USERNAME, MGMT_PASSWORD, MGMT_MESSAGING_URL,
  MGMT_REGIONAL_MESSAGING_URL, MGMT_MESSAGING_TOKEN) and PULUMI_CONFIG_PASSPHRASE`,
  },
  status: {
    synopsis: "status [--json]",
    summary: "per tenant: state, action, attempts, duration, error",
    about: "per tenant: state, action, attempts, duration, error",
    options: ["json", "database"],
  },
  drift: {
    synopsis: "drift <tenants.json>",
    summary: "a read-only check per tenant; exit 3 if any drifted",
    about: "a read-only check per tenant; waits, then lists what drifted (exit 3 if any did)",
    positional: "<tenants.json>",
    options: ["max-attempts", "database"],
  },
  destroy: {
    synopsis: "destroy <tenants.json> [--wait]",
    summary: "one destroy job per tenant",
    about: "one destroy job per tenant",
    positional: "<tenants.json>",
    options: ["wait", "max-attempts", "database"],
  },
} as const satisfies Record<string, Command>;

export type FleetCommand = keyof typeof COMMANDS;
export const FLEET_COMMANDS = Object.keys(COMMANDS) as FleetCommand[];

/** What parseArgs takes for one command: its own options and --help, and how many positionals. */
export function fleetCommandLine(command: FleetCommand): {
  options: Record<string, Option["parse"]>;
  maxPositionals: number;
} {
  const c: Command = COMMANDS[command];
  return {
    options: {
      ...Object.fromEntries(c.options.map((name) => [name, OPTIONS[name].parse])),
      help: { type: "boolean", short: "h", default: false },
    },
    maxPositionals: c.positional ? 1 : 0,
  };
}

/** The usage of one command, or of them all when `command` is none of them. */
export function fleetUsage(command?: string): string {
  if (command !== undefined && command in COMMANDS) {
    const c: Command = COMMANDS[command as FleetCommand];
    return [
      `usage: mgmt-fleet ${c.synopsis} [options]`,
      `  ${c.about}`,
      ...c.options.map((name) => OPTIONS[name].help),
      ...(c.notes ? [c.notes] : []),
    ].join("\n");
  }
  const width = Math.max(...Object.values(COMMANDS).map((c) => c.synopsis.length)) + 2;
  return [
    "usage: mgmt-fleet <command> [options]   (mgmt-fleet <command> --help for its options)",
    ...Object.values(COMMANDS).map((c: Command) => `  ${c.synopsis.padEnd(width)}${c.summary}`),
    OPTIONS.database.help,
  ].join("\n");
}
