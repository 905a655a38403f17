/**
 * What the MessagingSchedule provider receives (after `check`) and what the stack stores, and how a
 * schedule record the service answers reads as those inputs (settings.ts compares them).
 */
import { z } from "zod";
import type { Same } from "../../sameShape";
import { isTimeZone } from "../../api/cron";
import { SCHEDULE_METHODS, cron, destinationProblem, duration, scheduleId } from "../../api/scheduleSchemas";
import { flag, identityOutputs, region, token } from "../messagingFields";

const url = z.string({ error: "must be a string" }).regex(/^https?:\/\/\S+$/i, "must be an http:// or https:// URL");

export const scheduleMethod = z.enum(SCHEDULE_METHODS).meta({ title: "ScheduleMethod" });

export const ScheduleFlowControl = z.strictObject({
  key: z.string({ error: "must be a string" }).min(1, "must not be empty").meta({
    description: "The flow control key the schedule's messages are delivered under.",
  }),
  parallelism: z.number().int("must be a whole number").min(1, "must be at least 1").optional().meta({
    description: "How many of the key's messages are delivered at once.",
  }),
  rate: z.number().int("must be a whole number").min(1, "must be at least 1").optional().meta({
    description: "How many of the key's messages are delivered per period.",
  }),
  period: duration.optional().meta({ description: 'The rate\'s period, such as "1m" (default 1s).' }),
});
export type ScheduleFlowControl = z.output<typeof ScheduleFlowControl>;

/** The settings a user declares: each one travels in the create that replaces the schedule in place. */
export const scheduleSettingFields = {
  destination: z
    .string({ error: "must be a string" })
    .superRefine((d, ctx) => {
      const problem = destinationProblem(d);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .meta({ description: "Where each trigger sends the message: an http(s) URL, or a URL group's name." }),
  cron: cron.meta({
    description: 'When it triggers: five cron fields (minute hour day-of-month month day-of-week), e.g. "0 3 * * *".',
  }),
  timeZone: z
    .string({ error: "must be a string" })
    .refine(isTimeZone, "must be an IANA time zone such as Europe/Berlin")
    .optional()
    .meta({ description: "The time zone the cron is read in (default UTC), e.g. Europe/Berlin." }),
  method: scheduleMethod.optional().meta({ description: "The HTTP method of each message (default POST)." }),
  body: z.string({ error: "must be a string" }).optional().meta({ description: "The message's body, sent as it is." }),
  contentType: z
    .string({ error: "must be a string" })
    .min(1, "must not be empty")
    .optional()
    .meta({ description: "The body's content type (default text/plain)." }),
  headers: z
    .record(z.string().regex(/^[A-Za-z0-9-]+$/, "header names are letters, digits and '-'"), z.string())
    .optional()
    .meta({ description: "Headers sent on to the destination with each message: name to value." }),
  retries: z.number().int("must be a whole number").min(0, "must be at least 0").optional().meta({
    description: "How many times a failed delivery is retried.",
  }),
  retryDelay: z.string({ error: "must be a string" }).min(1).optional().meta({
    description:
      'The wait before a retry, in milliseconds, as an expression of `retried`, e.g. "pow(2, retried) * 1000".',
  }),
  delay: duration.optional().meta({ description: 'How long each message waits before delivery, e.g. "10s".' }),
  timeout: duration.optional().meta({ description: 'How long a delivery may take, e.g. "30s" or "2m".' }),
  callback: url.optional().meta({ description: "A URL told of each delivery's answer." }),
  failureCallback: url.optional().meta({ description: "A URL told when a delivery fails for good." }),
  flowControl: ScheduleFlowControl.optional().meta({
    description: "Delivers the messages under a flow control key: parallelism and/or rate per period.",
  }),
  labels: z
    .array(z.string().regex(/^[A-Za-z0-9_.-]+$/, "labels are letters, digits, '-', '_' and '.'"))
    .optional()
    .meta({
      description: "Labels the schedule's messages carry (for filtering logs).",
    }),
};

export const ScheduleInputs = z.object({
  region,
  token,
  ...scheduleSettingFields,
  paused: flag.optional().meta({
    description:
      "Pause (true) or run (false) the schedule. Left out, a pause someone made is kept; a new schedule runs.",
  }),
  /** Chosen by `check` once (schedule.ts): the id every create and replace sends, so a resend never duplicates. */
  scheduleId: scheduleId.optional(),
});
export type ScheduleInputs = z.output<typeof ScheduleInputs>;

export interface ScheduleOutputs extends ScheduleInputs {
  /** The account this schedule is managed on, or the fingerprint of its token (tokenAccount.ts). */
  managedBy?: string;
  tokenFingerprint?: string;
  /** True when this stack created the schedule: only then does destroy delete it. */
  created?: boolean;
  /** When it next triggers (unix ms), as last read. */
  nextScheduleTime?: number;
  /** When it last triggered (unix ms), as last read. */
  lastScheduleTime?: number;
}

/** The resource's id: where the schedule is and its id. An import gives the same. */
export const scheduleResourceId = (i: { region: string; scheduleId: string }) => `${i.region}/${i.scheduleId}`;

export const ScheduleOutputsSchema = z.object({
  region: region.meta({ description: "The region of the messaging account." }),
  token: z.string().optional().meta({
    description: "The messaging token the schedule is managed with (default: mgmt:messagingToken).",
    secret: true,
  }),
  ...scheduleSettingFields,
  method: scheduleMethod.optional(),
  paused: z.boolean().optional(),
  scheduleId: z.string().optional().meta({ description: "The schedule's id at the service." }),
  ...identityOutputs,
  created: z
    .boolean()
    .optional()
    .meta({ description: "True when this stack created the schedule: only then does destroy delete it." }),
  nextScheduleTime: z.number().optional().meta({ description: "When it next triggers (unix ms), as last read." }),
  lastScheduleTime: z.number().optional().meta({ description: "When it last triggered (unix ms), as last read." }),
});

/** The stored-output interface and its schema agree: tsc fails here when one drifts. */
export const OUTPUTS_AGREE: Same<z.infer<typeof ScheduleOutputsSchema>, ScheduleOutputs> = true;
