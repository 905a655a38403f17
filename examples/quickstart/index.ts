// The program `npm start` runs: a few search indexes, a messaging budget and flow control,
// declared as code. Against a real service, set the mgmt:* config and, if you like, the
// program's own settings below (`pulumi config set budget 250`, ...).
import * as pulumi from "@pulumi/pulumi";
import { MessagingBudget, MessagingControls, SearchIndex, getMessagingAccountOutput } from "pulumi-mgmt";

const config = new pulumi.Config();
const messagingRegion = (config.get("messagingRegion") ?? "eu-central-1") as "eu-central-1" | "us-east-1";
const flowControlKey = config.get("flowControlKey") ?? "tenant-demo";
const queue = config.get("queue") ?? "emails";

const catalog = new SearchIndex("catalog", { name: "catalog", region: "eu-west-1", type: "payg" });
const support = new SearchIndex("support", { name: "support-articles", region: "us-central1", type: "free" });
const scratch = new SearchIndex("scratch", { region: "eu-west-1", type: "free" });

// The first messaging account of the region: its id is no secret, its token is.
const account = getMessagingAccountOutput({ region: messagingRegion });
const budget = new MessagingBudget("spend-cap", {
  accountId: pulumi.unsecret(account.id),
  budget: config.getNumber("budget") ?? 100,
});
const controls = new MessagingControls("ops", {
  region: messagingRegion,
  token: account.token,
  flowControlKeys: [
    {
      key: flowControlKey,
      paused: config.getBoolean("pauseTenant") ?? false,
      resetRateTrigger: config.get("resetRateTrigger"),
    },
  ],
  queues: [{ name: queue, resumeTrigger: config.get("resumeTrigger") }],
});

export const indexes = [catalog, support, scratch].map((i) => ({
  name: i.name,
  id: i.id,
  region: i.region,
  deployedRegion: i.deployedRegion,
  type: i.type,
  endpoint: i.endpoint,
}));
export const catalogToken = catalog.token;
export const messagingBudget = {
  accountId: budget.accountId,
  region: budget.region,
  budget: budget.budget,
  previousBudget: budget.previousBudget,
};
export const waitListSizes = controls.waitListSizes;
export const keyStates = controls.keyStates;
