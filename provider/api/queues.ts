import { z } from "zod";
import type { Call, MessagingTarget } from "./request";
import { OkBody, QueueRecord, UpsertQueueBody, describeIssues } from "./schemas";
import { UserError } from "../userError";

/** One messaging account's queues in one region (contract "Additions", and endpoint 9: resume). */
export class Queues {
  constructor(
    private readonly call: Call,
    private readonly target: MessagingTarget,
  ) {}

  /** Creates a queue or sets its full state (parallelism, paused): never a delta. */
  async upsert(body: UpsertQueueBody): Promise<void> {
    const parsed = UpsertQueueBody.safeParse(body);
    if (!parsed.success) throw new UserError(`invalid queue: ${describeIssues(parsed.error).join("; ")}`);
    // The contract gives the status (200), not a body: whatever comes is not read.
    await this.call("upsertQueue", { body: parsed.data, ...this.target, schema: z.unknown() });
  }
  /** One queue; NotFoundError when the account has none of that name. */
  get(queue: string): Promise<QueueRecord> {
    return this.call("getQueue", { params: { queue }, ...this.target, schema: QueueRecord });
  }
  /** All of the account's queues in the region. */
  list(): Promise<QueueRecord[]> {
    return this.call("listQueues", { ...this.target, schema: z.array(QueueRecord) });
  }
  /** Deletes a queue and the messages waiting in it. */
  async delete(queue: string): Promise<void> {
    // As for upsert: a 200 with no body the contract names.
    await this.call("deleteQueue", { params: { queue }, ...this.target, schema: z.unknown() });
  }
  /** Pauses a queue; pausing a paused queue changes nothing. */
  async pause(queue: string): Promise<void> {
    await this.call("pauseQueue", { params: { queue }, ...this.target, schema: OkBody });
  }
  /** Resumes a queue; resuming a running queue changes nothing. */
  async resume(queue: string): Promise<void> {
    await this.call("resumeQueue", { params: { queue }, ...this.target, schema: OkBody });
  }
}
