import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { mgmtStack, type MgmtConfig, type MgmtStack } from "../provider/automation";
import { SearchIndex } from "../provider";
import { installPlugin, pluginCacheDir } from "../provider/plugin/install";
import { startEmulatorProcess } from "./emulatorProcess";
import { cpuNow, cpuSince } from "./pluginLeg";
import { searchIndexStateSplit } from "./stateSize";

const CLK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
const N = Number(process.env.N ?? 200);
const REPS = Number(process.env.REPS ?? 3);
class PluginResource extends pulumi.CustomResource {}

(async () => {
  const emu = await startEmulatorProcess();
  const home = mkdtempSync(path.join(os.tmpdir(), "mgmt-probe-home-"));
  installPlugin(pluginCacheDir({ PULUMI_HOME: home }), path.join(__dirname, "../provider/plugin/main.js"));
  const res: Record<string, Record<string, number[]>> = {};
  for (let rep = 0; rep < REPS; rep++) {
    for (const who of rep % 2 ? ["plugin", "dynamic"] : ["dynamic", "plugin"]) {
      const user = await emu.reset(50);
      const mgmt: MgmtConfig = { baseUrl: emu.baseUrl, messagingUrl: emu.messagingUrl, regionalMessagingUrl: emu.regionalMessagingUrl, ...user };
      const backendDir = mkdtempSync(path.join(os.tmpdir(), "mgmt-probe-"));
      const s: MgmtStack = await mgmtStack({
        stackName: `${who}-${rep}`, projectName: "probe", mgmt, backendDir, passphrase: "x", offline: true,
        envVars: who === "plugin" ? { PULUMI_HOME: home } : {},
        program: async () => {
          for (let i = 0; i < N; i++) {
            const args = { name: `${who[0]}${rep}-${i}`, region: "eu-west-1", type: "free" };
            if (who === "plugin") new PluginResource("mgmt:index:SearchIndex", `idx-${i}`, args);
            else new SearchIndex(`idx-${i}`, args as never);
          }
        },
      });
      const m = async (phase: string, f: () => Promise<unknown>) => {
        const b = cpuNow(CLK); const t = Date.now(); await f(); const c = cpuSince(b, CLK);
        ((res[who] ??= {})[phase] ??= []).push(c.self + c.children);
        process.stdout.write(`${who} ${phase} rep ${rep}: ${(c.self + c.children).toFixed(2)} CPU s (self ${c.self.toFixed(2)}), ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
      };
      await m("up", () => s.up());
      if (rep === 0) console.log(who, "state", JSON.stringify(searchIndexStateSplit(s.backendDirFiles())));
      await m("preview", () => s.stack.preview());
      await m("refresh", () => s.refresh());
      await m("destroy", () => s.destroy());
      await s.stack.workspace.removeStack(s.stack.name);
      rmSync(backendDir, { recursive: true, force: true });
    }
  }
  console.log(JSON.stringify(res));
  await emu.close();
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
