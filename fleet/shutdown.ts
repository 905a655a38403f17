/**
 * How a driver or worker process ends: gracefully first, for good when that takes too long or is
 * asked twice. A graceful stop cancels each running update (the CLI finishes what is in flight,
 * writes the state and lets go of its lock), which needs the state backend: with the database
 * away, it can wait without end. Stopping for good kills every process this one started (the
 * Pulumi CLIs, and their plugins, which the CLI starts in process groups of their own) and stops
 * waiting to record anything: what is left (an open run record, Pulumi's lock, pending creates)
 * is what the next run of each stack recovers, and no request is sent for a run that is over.
 */
import { killTree } from "./processes";
import { UserError } from "pulumi-mgmt/internal/userError";

export interface Shutdown {
  /** Fires on the first request: cancel the running updates gracefully, start nothing new. */
  readonly cancel: AbortSignal;
  /** Fires when stopping for good: this process's Pulumi processes are killed by then. */
  readonly abandon: AbortSignal;
  /** The first call cancels gracefully (for good after `graceMs`, if finite); a second one stops for good at once. */
  request(why: string): void;
  /** Stops for good at once. */
  now(why: string): void;
}

/**
 * Starts a process's shutdown rule. It also keeps the process working when whoever reads its
 * output goes away (a closed terminal, a pipe's reader killed): Node then fails every write to
 * stdout and stderr with EPIPE, and unheard, each failure is an uncaught exception, which the
 * Automation API's inline program server catches and logs, to stderr, failing again: a loop that
 * burnt a core and gigabytes of memory in a driver waiting for its database. A process that ends
 * only by a signal or its own end keeps converging, silently.
 */
export function shutdown(o: { graceMs?: number; log: (line: string) => void }): Shutdown {
  for (const stream of [process.stdout, process.stderr])
    if (stream.listenerCount("error") === 0) stream.on("error", () => undefined);
  const cancel = new AbortController();
  const abandon = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const now = (why: string) => {
    if (abandon.signal.aborted) return;
    clearTimeout(timer);
    const killed = killTree(process.pid, false);
    o.log(
      `${why}: stopping now${killed.length ? ` (ended ${killed.length} Pulumi process${killed.length === 1 ? "" : "es"})` : ""}; the next run recovers what was left`,
    );
    cancel.abort(new UserError(why));
    abandon.abort(new UserError(why));
  };
  return {
    cancel: cancel.signal,
    abandon: abandon.signal,
    request(why) {
      if (cancel.signal.aborted) return now(`${why} again`);
      const grace = o.graceMs ?? Infinity;
      o.log(
        `${why}: cancelling the running updates (${Number.isFinite(grace) ? `for good in ${Math.round(grace / 1000)}s, or` : "for good"} at a second signal)`,
      );
      cancel.abort();
      if (!Number.isFinite(grace)) return;
      timer = setTimeout(() => now(`the running updates did not stop within ${Math.round(grace / 1000)}s`), grace);
      timer.unref();
    },
    now,
  };
}
