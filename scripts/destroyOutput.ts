/**
 * The engine's `destroy` output as the main job shows it. Three parts of it mislead here: the
 * "Outputs:" block lists, as if they existed, the values of everything just deleted; the summary
 * counts every resource twice, "8 deleted" beside "8 unchanged" (the destroy runs the program,
 * whose resources the engine first finds unchanged, then deletes); and the closing advice, "run
 * `pulumi stack rm <stack>`", fails from this project (no `pulumi` on PATH, and the CLI alone does
 * not know the project's `.pulumi-state` backend). They are left out; the main job says itself
 * how to remove the stack.
 */
export function destroyOutput(write: (text: string) => void): { onOutput(chunk: string): void; end(): void } {
  let partial = "";
  let inOutputs = false;
  let inResources = false;
  const line = (text: string) => {
    if (/^Outputs:\s*$/.test(text)) inOutputs = true;
    else if (inOutputs && /^\S/.test(text)) inOutputs = false; // the next section ("Resources:")
    if (inOutputs) return;
    if (/^Resources:\s*$/.test(text)) inResources = true;
    else if (inResources && /^\S/.test(text)) inResources = false; // "Duration: ..."
    if (inResources && /^\s+\d+ unchanged\s*$/.test(text)) return;
    if (/^The resources in the stack have been deleted, but the history and configuration/.test(text)) return;
    if (/^If you want to remove the stack completely, run `pulumi stack rm/.test(text)) return;
    write(`${text}\n`);
  };
  return {
    onOutput(chunk) {
      const lines = (partial + chunk).split("\n");
      partial = lines.pop()!;
      for (const l of lines) line(l);
    },
    end() {
      if (partial) line(partial);
      partial = "";
    },
  };
}
