#!/usr/bin/env node
/**
 * mgmt-emulator [--port N] [--host H] [--data FILE] [--place REQUESTED=DEPLOYED]
 *               [--password PW] [--key KEY[=WAITLIST]]... [--queue NAME]...
 */
import { parseArgs } from "node:util";
import { SEARCH_REGIONS, type SearchRegion } from "../provider/api/schemas";
import { startEmulator } from "./index";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "4010" },
      host: { type: "string", default: "127.0.0.1" },
      data: { type: "string" },
      place: { type: "string", multiple: true },
      password: { type: "string" },
      key: { type: "string", multiple: true },
      queue: { type: "string", multiple: true },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(`usage: mgmt-emulator [options]
  --port N                  port on the host (default 4010; 0 picks a free one)
  --host H                  address to listen on (default 127.0.0.1)
  --data FILE               keep state in FILE (atomic writes) and load it on start
  --place REQUESTED=DEPLOYED  deploy search indexes requested in one region to another
  --password PW             password of the seeded users (default: random, printed below)
  --key KEY[=WAITLIST]      a flow control key in every seeded messaging account (repeatable)
  --queue NAME              a paused queue in every seeded messaging account (repeatable)`);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0 to 65535, got "${values.port}"`);
  const placement: Partial<Record<SearchRegion, SearchRegion>> = {};
  for (const p of values.place ?? []) {
    const [from, to] = p.split("=") as [SearchRegion, SearchRegion];
    if (!SEARCH_REGIONS.includes(from) || !SEARCH_REGIONS.includes(to)) {
      throw new Error(`--place takes REQUESTED=DEPLOYED with regions ${SEARCH_REGIONS.join(", ")}, got "${p}"`);
    }
    placement[from] = to;
  }
  const emu = await startEmulator({ port, host: values.host, dataFile: values.data, placement });
  const data = emu.emulator.data;
  if (values.password !== undefined) for (const u of data.users) u.password = values.password;
  for (const spec of values.key ?? []) {
    const [key, size = "0"] = spec.split("=");
    if (!key || !/^\d+$/.test(size)) throw new Error(`--key takes KEY or KEY=WAITLIST with a whole number, got "${spec}"`);
    for (const a of data.accounts) a.keys[key] ??= { waitListSize: Number(size), paused: false, rateResets: 0 };
  }
  for (const name of values.queue ?? []) for (const a of data.accounts) a.queues[name] ??= { paused: true, resumes: 0 };
  emu.emulator.persist();
  console.log(`mgmt-emulator listening on ${emu.url}${values.data ? ` (state in ${values.data})` : ""}`);
  console.log(`  mgmt:baseUrl               ${emu.baseUrl}`);
  console.log(`  mgmt:messagingUrl          ${emu.messagingUrl}`);
  console.log(`  mgmt:regionalMessagingUrl  ${emu.regionalMessagingUrl}`);
  console.log(`  test controls              ${emu.url}/_emulator/ (loopback only)`);
  for (const u of emu.users) {
    console.log(`  user ${u.username}  password ${u.password}`);
    for (const a of u.accounts) console.log(`    messaging account ${a.id} ${a.region} ${a.type} token ${a.token}`);
  }
  const stop = () => void emu.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((err: Error) => {
  console.error(`mgmt-emulator: ${err.message}`);
  process.exit(1);
});
