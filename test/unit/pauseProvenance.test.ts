import { pauseChanged } from "../../provider/resources/pauseProvenance";

test("a pause change is recorded as the stack's, and undoing its own change clears the record", () => {
  expect(pauseChanged({}, true)).toEqual({ pausedByStack: true });
  expect(pauseChanged({}, false)).toEqual({ resumedByStack: true });
  // It resumed what it had paused: nothing of the stack's is left to give back.
  expect(pauseChanged({ pausedByStack: true }, false)).toEqual({ resumedByStack: undefined });
  // It paused again what it had resumed from someone's pause: back as found.
  expect(pauseChanged({ resumedByStack: true }, true)).toEqual({ pausedByStack: undefined });
});
