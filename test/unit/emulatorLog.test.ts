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

test("allLogged waits for every request that arrived, one that arrived before resetLog included", async () => {
  const controls = new Controls();
  const early = controls.arrival();
  controls.resetLog();
  const late = controls.arrival();
  let settled = false;
  const wait = controls.allLogged().then(() => (settled = true));
  controls.record({ seq: late, method: "GET", path: "/v2/search", route: "GET /v2/search", status: 200 });
  await new Promise((r) => setImmediate(r));
  expect([settled, controls.unloggedCount()]).toEqual([false, 1]);
  controls.record({ seq: early, method: "POST", path: "/v2/search", route: "POST /v2/search", status: "abandoned" });
  expect(controls.unloggedCount()).toBe(0);
  await wait;
  await controls.allLogged(); // nothing out: at once
});
