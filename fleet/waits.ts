/** Waits of the fleet's loops: each ends early when its signal fires, and none keeps the process alive. */

/** Attempts 1 s, 2 s, ... up to 10 s apart, until done or `abandon` fires: the database restarting or away. */
export async function untilDone(op: () => Promise<void>, abandon?: AbortSignal): Promise<void> {
  for (let attempt = 1; !abandon?.aborted; attempt++) {
    try {
      return await op();
    } catch {
      await abortableSleep(Math.min(1000 * attempt, 10_000), abandon);
    }
  }
}

/** A wait that ends early when `signal` fires, and keeps no process alive. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => (clearTimeout(timer), signal?.removeEventListener("abort", done), resolve());
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
