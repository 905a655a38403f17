import { z } from "zod";
import type { Call, MessagingTarget } from "./request";
import { FlowControlInfo, GlobalParallelism, OkBody, type PinQuery } from "./schemas";

/**
 * One messaging account's flow control keys (endpoints 6-8 and the contract's "Additions"). Changes
 * go to the account's regional address; reads too when the target names a region (there a token
 * of another region's account is refused), else to the region-less address.
 */
export class FlowControl {
  constructor(
    private readonly call: Call,
    private readonly target: MessagingTarget,
  ) {}

  /** All of the account's keys, as `get` reports each. */
  list(): Promise<FlowControlInfo[]> {
    return this.call("listFlowControlKeys", { ...this.target, schema: z.array(FlowControlInfo) });
  }
  /** A key's wait list and, where the service reports them, its pause and pinned limits. */
  get(key: string): Promise<FlowControlInfo> {
    return this.call("getFlowControl", { params: { key }, ...this.target, schema: FlowControlInfo });
  }
  /** Resets a key's rate counters. */
  async resetRate(key: string): Promise<void> {
    await this.call("resetRate", { params: { key }, ...this.target, schema: OkBody });
  }
  /** Pauses delivery of a key's messages; pausing a paused key changes nothing. */
  async pause(key: string): Promise<void> {
    await this.call("pauseFlowControl", { params: { key }, ...this.target, schema: OkBody });
  }
  /** Lifts a key's pause; resuming a running key changes nothing. */
  async resume(key: string): Promise<void> {
    await this.call("resumeFlowControl", { params: { key }, ...this.target, schema: OkBody });
  }
  /** Pins limits that win over those messages carry; a key that never carried a message is created. */
  async pin(key: string, pin: PinQuery): Promise<void> {
    await this.call("pinFlowControl", { params: { key }, query: pin, ...this.target, schema: OkBody });
  }
  /** Unpins the given parts of a key's pinned limits. */
  async unpin(key: string, parts: { parallelism?: boolean; rate?: boolean }): Promise<void> {
    const query = { parallelism: parts.parallelism ? "true" : undefined, rate: parts.rate ? "true" : undefined };
    await this.call("unpinFlowControl", { params: { key }, query, ...this.target, schema: OkBody });
  }
  /** The account's global parallelism: its limit and how much is in use. */
  globalParallelism(): Promise<GlobalParallelism> {
    return this.call("getGlobalParallelism", { ...this.target, schema: GlobalParallelism });
  }
}
