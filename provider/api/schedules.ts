import { z } from "zod";
import type { Call, MessagingTarget } from "./request";
import {
  CreateScheduleAnswer,
  DEFAULT_CONTENT_TYPE,
  ScheduleRecord,
  scheduleHeaders,
  type ScheduleSettings,
} from "./scheduleSchemas";

/** One messaging account's schedules in one region (contract "Schedules, URL groups and signing keys"). */
export class Schedules {
  constructor(
    private readonly call: Call,
    private readonly target: MessagingTarget,
  ) {}

  /**
   * Creates the schedule of `settings.scheduleId`, or replaces all its settings in place when it
   * exists (its pause state stays). Returns its id.
   */
  async create(destination: string, settings: ScheduleSettings): Promise<string> {
    const answer = await this.call("createSchedule", {
      params: { destination },
      headers: scheduleHeaders(settings),
      // The body travels to the destination as it is, with its own content type.
      rawBody: { text: settings.body ?? "", contentType: settings.contentType ?? DEFAULT_CONTENT_TYPE },
      ...this.target,
      schema: CreateScheduleAnswer,
    });
    return answer.scheduleId;
  }
  /** One schedule; NotFoundError when the account has none of that id. */
  get(scheduleId: string): Promise<ScheduleRecord> {
    return this.call("getSchedule", { params: { scheduleId }, ...this.target, schema: ScheduleRecord });
  }
  /** All of the account's schedules. */
  list(): Promise<ScheduleRecord[]> {
    return this.call("listSchedules", { ...this.target, schema: z.array(ScheduleRecord) });
  }
  async delete(scheduleId: string): Promise<void> {
    await this.call("deleteSchedule", { params: { scheduleId }, ...this.target, schema: z.unknown() });
  }
  /** Its triggers are ignored until resumed; pausing a paused schedule changes nothing. */
  async pause(scheduleId: string): Promise<void> {
    await this.call("pauseSchedule", { params: { scheduleId }, ...this.target, schema: z.unknown() });
  }
  async resume(scheduleId: string): Promise<void> {
    await this.call("resumeSchedule", { params: { scheduleId }, ...this.target, schema: z.unknown() });
  }
}
