#!/usr/bin/env node
/**
 * mgmt-emulator [--port N] [--host H] [--data FILE] [--place REQUESTED=DEPLOYED]
 *               [--password PW] [--key KEY[=WAITLIST]]... [--queue NAME]... [--env]
 *
 * --env: stdout gets only `export MGMT_...='...'` lines (addresses, the first seeded user, its
 * first eu-central-1 messaging token), written at once when the server listens; the listing
 * goes to stderr. `eval "$(mgmt-emulator --env &)"` would wait for the server to exit, so:
 *   mgmt-emulator --port 0 --env > emulator.env &
 *   until [ -s emulator.env ] || ! kill -0 $! 2>/dev/null; do sleep 0.2; done; . ./emulator.env
 * and stop it with `kill "$(cat FILE)"` given --pid-file FILE: under npx, $! is npx, which does not
 * pass the signal on, and `kill %1` works only in an interactive shell.
 * A --port in use fails at once (exit 1) rather than leave the user talking to another process.
 */
import "./needsPulumiMgmt";
import { rmSync, writeFileSync } from "node:fs";
import { exitStatus, parseCommandLine } from "pulumi-mgmt/internal/cli/commandLine";
import { SEARCH_REGIONS, type SearchRegion } from "pulumi-mgmt/internal/api/schemas";
import { SETTINGS_KEYS, type SettingName } from "pulumi-mgmt/internal/config";
import { startEmulator, type RunningEmulator } from "./index";

/** A POSIX shell single-quoted word: ' becomes '\'' */
const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** What --env exports, in this order; the variable names come from the provider's own table. */
const ENV_SETTINGS: SettingName[] = [
  "baseUrl",
  "messagingUrl",
  "regionalMessagingUrl",
  "username",
  "password",
  "messagingToken",
];

function envExports(emu: RunningEmulator): string[] {
  const values: Partial<Record<SettingName, string>> = {
    baseUrl: emu.baseUrl,
    messagingUrl: emu.messagingUrl,
    regionalMessagingUrl: emu.regionalMessagingUrl,
  };
  const user = emu.users[0];
  if (user) {
    values.username = user.username;
    values.password = user.password;
    values.messagingToken = user.accounts.find((a) => a.region === "eu-central-1")?.token;
  }
  return ENV_SETTINGS.filter((name) => values[name] !== undefined).map(
    (name) => `export ${SETTINGS_KEYS[name].env}=${shellQuote(values[name]!)}`,
  );
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    {
      options: {
        port: { type: "string", default: "4010" },
        host: { type: "string", default: "127.0.0.1" },
        data: { type: "string" },
        place: { type: "string", multiple: true },
        password: { type: "string" },
        key: { type: "string", multiple: true },
        queue: { type: "string", multiple: true },
        env: { type: "boolean" },
        "pid-file": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    },
    { help: "mgmt-emulator --help" },
  );
  if (values.help) {
    const names = (from: number, to?: number) =>
      ENV_SETTINGS.slice(from, to)
        .map((name) => SETTINGS_KEYS[name].env)
        .join(" ");
    console.log(`usage: mgmt-emulator [options]
  --port N                  port on the host (default 4010; 0 picks a free one)
  --host H                  address to listen on (default 127.0.0.1)
  --data FILE               keep state in FILE (atomic writes) and load it on start: a restart
                            keeps users, passwords and tokens, and with --port 0 the port too
                            (when it is free)
  --pid-file FILE           write this process's id to FILE (removed on exit): stop it with
                            kill "$(cat FILE)", from a script as from a terminal
  --place REQUESTED=DEPLOYED  deploy search indexes requested in one region to another
  --password PW             password of the seeded users (default: random, printed below)
  --key KEY[=WAITLIST]      a flow control key in every seeded messaging account (repeatable)
  --queue NAME              a paused queue in every seeded messaging account (repeatable)
  --env                     print only shell exports on stdout, then keep running (the listing
                            goes to stderr): the addresses, then the first user's credentials
                            and first eu-central-1 messaging token:
                              ${names(0, 3)}
                              ${names(3)}
                            In the background (eval "$(mgmt-emulator --env &)" would hang):
                              mgmt-emulator --port 0 --pid-file emulator.pid --env > emulator.env &
                              until [ -s emulator.env ] || ! kill -0 $! 2>/dev/null; do sleep 0.2; done
                              . ./emulator.env
                              ...
                              kill "$(cat emulator.pid)"   # with npx in front, $! is npx, not the emulator`);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be 0 to 65535, got "${values.port}"`);
  const placement: Partial<Record<SearchRegion, SearchRegion>> = {};
  for (const p of values.place ?? []) {
    const [from, to] = p.split("=") as [SearchRegion, SearchRegion];
    if (!SEARCH_REGIONS.includes(from) || !SEARCH_REGIONS.includes(to)) {
      throw new Error(`--place takes REQUESTED=DEPLOYED with regions ${SEARCH_REGIONS.join(", ")}, got "${p}"`);
    }
    placement[from] = to;
  }
  const emu = await startEmulator({ port, host: values.host, dataFile: values.data, placement }).catch(
    (err: NodeJS.ErrnoException) => {
      // Fail at once and say what to do: a user who carries on would talk to the other process.
      if (err.code === "EADDRINUSE")
        throw new Error(
          `port ${port} on ${values.host} is already in use: stop the other process or pass --port 0 for a free one`,
        );
      throw err;
    },
  );
  const data = emu.emulator.data;
  if (values.password !== undefined) for (const u of data.users) u.password = values.password;
  for (const spec of values.key ?? []) {
    const [key, size = "0"] = spec.split("=");
    if (!key || !/^\d+$/.test(size))
      throw new Error(`--key takes KEY or KEY=WAITLIST with a whole number, got "${spec}"`);
    for (const a of data.accounts) a.keys[key] ??= { waitListSize: Number(size), paused: false, rateResets: 0 };
  }
  for (const name of values.queue ?? []) for (const a of data.accounts) a.queues[name] ??= { paused: true, resumes: 0 };
  emu.emulator.persist();
  // With --env, stdout is for `eval`/`.` only. One write, so a reader never sees half of it.
  const log = values.env ? console.error : console.log;
  if (values.env) process.stdout.write(`${envExports(emu).join("\n")}\n`);
  log(`mgmt-emulator listening on ${emu.url}${values.data ? ` (state in ${values.data})` : ""}`);
  log(`  mgmt:baseUrl               ${emu.baseUrl}`);
  log(`  mgmt:messagingUrl          ${emu.messagingUrl}`);
  log(`  mgmt:regionalMessagingUrl  ${emu.regionalMessagingUrl}`);
  log(`  test controls              ${emu.url}/_emulator/ (loopback only)`);
  for (const u of emu.users) {
    log(`  user ${u.username}  password ${u.password}`);
    for (const a of u.accounts) log(`    messaging account ${a.id} ${a.region} ${a.type} token ${a.token}`);
  }
  // The emulator's own pid: under npx, $! is npx, and %1 works only in an interactive shell.
  const pidFile = values["pid-file"];
  if (pidFile) writeFileSync(pidFile, `${process.pid}\n`);
  const stop = () =>
    void emu.close().then(() => {
      if (pidFile) rmSync(pidFile, { force: true });
      process.exit(0);
    });
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((err: Error) => {
  console.error(`mgmt-emulator: ${err.message}`);
  process.exit(exitStatus(err));
});
