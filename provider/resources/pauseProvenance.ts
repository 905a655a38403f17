/**
 * Who changed a pause, for keys and queues alike: `pausedByStack` (the stack paused what was
 * running) or `resumedByStack` (it resumed what was paused). Destroy gives back only these.
 */
export interface PauseProvenance {
  pausedByStack?: boolean;
  resumedByStack?: boolean;
}

/** The record after this stack pauses (true) or resumes (false): undoing its own change clears it. */
export function pauseChanged(prov: PauseProvenance, pausing: boolean): PauseProvenance {
  if (pausing) return prov.resumedByStack ? { pausedByStack: prov.pausedByStack } : { pausedByStack: true };
  return prov.pausedByStack ? { resumedByStack: prov.resumedByStack } : { resumedByStack: true };
}
