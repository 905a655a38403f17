// Operate a messaging account's flow control as code:
// - a declared policy: the quiet tenant's key pinned to 5 messages at once and 100 per minute,
//   whatever its publishers send; a change made outside Pulumi shows in `refresh` and the next
//   `up` puts it back;
// - a declared queue (`jobs`, 2 at once), created by this stack and deleted on destroy;
// - incident actions: pause the noisy tenant, reset the quiet tenant's rate once per incident,
//   resume the `invoices` queue once after maintenance.
// Every change shows up in the preview before it runs.
import * as pulumi from "@pulumi/pulumi";
import {
  MessagingControls,
  getFlowControlOutput,
  getGlobalParallelismOutput,
  getMessagingAccountOutput,
} from "pulumi-mgmt";

const config = new pulumi.Config();
const region = (config.get("region") ?? "eu-central-1") as "eu-central-1" | "us-east-1";
const account = getMessagingAccountOutput({ region });

const controls = new MessagingControls("tenant-ops", {
  region,
  token: account.token, // or leave out to use mgmt:messagingToken
  flowControlKeys: [
    { key: config.get("noisyTenant") ?? "tenant-42", paused: config.getBoolean("pauseNoisyTenant") ?? true },
    {
      key: config.get("quietTenant") ?? "tenant-7",
      pin: {
        parallelism: config.getNumber("quietParallelism") ?? 5,
        rate: config.getNumber("quietRatePerMinute") ?? 100,
        period: 60,
      },
      resetRateTrigger: config.get("incident"), // a new value resets once
    },
  ],
  queues: [
    { name: config.get("queue") ?? "invoices", resumeTrigger: config.get("maintenanceDone") },
    { name: config.get("jobsQueue") ?? "jobs", parallelism: config.getNumber("jobsParallelism") ?? 2 },
  ],
});

export const waitListSizes = controls.waitListSizes;
export const keyStates = controls.keyStates;
export const queueStates = controls.queueStates;
export const quietTenantWaitList = getFlowControlOutput({
  key: config.get("quietTenant") ?? "tenant-7",
  token: account.token,
}).waitListSize;
export const globalParallelismMax = getGlobalParallelismOutput({ token: account.token }).parallelismMax;
