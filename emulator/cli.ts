#!/usr/bin/env node
/** `mgmt-emulator [--port N] [--host H] [--data FILE] [--place us-central1=eu-west-1]` */
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
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log("usage: mgmt-emulator [--port N] [--host H] [--data FILE] [--place REQUESTED=DEPLOYED]");
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
