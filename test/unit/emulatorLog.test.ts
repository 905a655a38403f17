/** The emulator's request log after a reset holds only the requests that arrived after it. */
import { Controls } from "../../emulator/controls";

test("a request that arrived before resetLog is not logged when it ends after it (a late 'abandoned')", () => {
  const controls = new Controls();
  const early = controls.arrival();
  controls.resetLog();
  const late = controls.arrival();
  controls.record({ seq: early, method: "POST", path: "/v2/search", route: "POST /v2/search", status: "abandoned" });
  controls.record({ seq: late, method: "GET", path: "/v2/search", route: "GET /v2/search", status: 200 });
  expect(controls.counters().byStatus).toEqual({ "200": 1 });
});

test("allLogged waits for the requests that arrived since resetLog and before the call, not for later ones", async () => {
  const controls = new Controls();
  controls.arrival(); // before the reset, never logged: out of the log's scope
  controls.resetLog();
  const a = controls.arrival();
  let settled = false;
  const wait = controls.allLogged(5_000).then(() => (settled = true));
  controls.arrival(); // after the call: not waited for
  await new Promise((r) => setImmediate(r));
  expect(settled).toBe(false);
  controls.record({ seq: a, method: "POST", path: "/v2/search", route: "POST /v2/search", status: "abandoned" });
  await wait;
  expect(settled).toBe(true);
});

test("allLogged fails after its timeout, saying how many requests are still out", async () => {
  const controls = new Controls();
  controls.arrival();
  await expect(controls.allLogged(50)).rejects.toThrow("the emulator: 1 requests still unanswered after 50 ms");
});
