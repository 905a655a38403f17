// Operate a noisy tenant: pause its flow control key, reset its rate after an incident, resume a
// queue after maintenance. Each change shows up in the preview before it runs.
import * as pulumi from "@pulumi/pulumi";
import { MessagingControls, getFlowControlOutput, getMessagingAccountOutput } from "pulumi-mgmt";

const config = new pulumi.Config();
const region = (config.get("region") ?? "eu-central-1") as "eu-central-1" | "us-east-1";
const account = getMessagingAccountOutput({ region });

const controls = new MessagingControls("tenant-ops", {
  region,
  token: account.token, // or leave out to use mgmt:messagingToken
  flowControlKeys: [
    { key: config.get("noisyTenant") ?? "tenant-42", paused: config.getBoolean("pauseNoisyTenant") ?? true },
    { key: config.get("quietTenant") ?? "tenant-7", resetRateTrigger: config.get("incident") }, // a new value resets once
  ],
  queues: [{ name: config.get("queue") ?? "invoices", resumeTrigger: config.get("maintenanceDone") }],
});

export const waitListSizes = controls.waitListSizes;
export const keyStates = controls.keyStates;
export const queueStates = controls.queueStates;
export const quietTenantWaitList = getFlowControlOutput({ key: config.get("quietTenant") ?? "tenant-7", token: account.token }).waitListSize;
