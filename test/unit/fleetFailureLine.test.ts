/** What `mgmt-fleet` prints when a command fails (fleet/failureLine.ts): one line with a reason. */
import { failureLine } from "../../fleet/failureLine";

test("a database host of two addresses, both refused (an AggregateError, no message of its own): its attempts say why", () => {
  const attempt = (address: string) =>
    Object.assign(new Error(`connect ECONNREFUSED ${address}:5432`), { code: "ECONNREFUSED" });
  const both = Object.assign(new AggregateError([attempt("::1"), attempt("127.0.0.1")], ""), {
    code: "ECONNREFUSED",
  });
  expect(failureLine(both)).toBe(
    "the fleet database: connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432; check --database or MGMT_FLEET_DATABASE_URL",
  );
});

test("any other failure is its message", () => {
  expect(failureLine(new Error("tenants.json[0] (a): plan: must be one of free, payg"))).toBe(
    "tenants.json[0] (a): plan: must be one of free, payg",
  );
});

test("a server that closed the connection (node-postgres's error has no code) names the fleet database too", () => {
  expect(failureLine(new Error("Connection terminated unexpectedly"))).toBe(
    "the fleet database: Connection terminated unexpectedly; check --database or MGMT_FLEET_DATABASE_URL",
  );
});
