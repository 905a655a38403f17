import { resolveSettings } from "../../provider/config";
import {
  believeGone,
  IdentityMismatchError,
  managementIdentity,
  tokenIdentity,
} from "../../provider/resources/identity";

const settings = (extra: Record<string, string> = {}) =>
  resolveSettings(
    (key) =>
      ({ "mgmt:baseUrl": "https://api.example.com/", "mgmt:username": "alice", "mgmt:password": "s3cret", ...extra })[
        key
      ],
    {},
  );

test("a management identity is user@address, never the password", () => {
  expect(managementIdentity(settings())).toBe("alice@https://api.example.com");
  expect(managementIdentity(settings({ "mgmt:baseUrl": "https://gw.example.com/mgmt/" }))).toBe(
    "alice@https://gw.example.com/mgmt",
  );
  expect(managementIdentity(settings())).not.toContain("s3cret");
});

test("a token identity is a short fingerprint that does not contain the token", () => {
  expect(tokenIdentity("msg_abcdef")).toMatch(/^token:[0-9a-f]{12}$/);
  expect(tokenIdentity("msg_abcdef")).toBe(tokenIdentity("msg_abcdef"));
  expect(tokenIdentity("msg_abcdef")).not.toBe(tokenIdentity("msg_abcdeg"));
});

test("not found is proof of deletion only for the same identity, no recorded identity, or a deliberate move", () => {
  const current = managementIdentity(settings());
  expect(() =>
    believeGone({ what: "index x", managedBy: current, asking: current, settings: settings() }),
  ).not.toThrow();
  expect(() =>
    believeGone({ what: "index x", managedBy: undefined, asking: current, settings: settings() }),
  ).not.toThrow();
  expect(() =>
    believeGone({ what: "index x", managedBy: "bob@https://api.example.com", asking: current, settings: settings() }),
  ).toThrow(IdentityMismatchError);
  expect(() =>
    believeGone({ what: "index x", managedBy: "bob@https://api.example.com", asking: current, settings: settings() }),
  ).toThrow(
    /index x was not found by alice@https:\/\/api.example.com, but it is managed by bob@https:\/\/api.example.com: it is kept in the stack.*mgmt:movedFrom/,
  );
  expect(() =>
    believeGone({
      what: "index x",
      managedBy: "bob@https://api.example.com",
      asking: current,
      settings: settings({ "mgmt:movedFrom": "bob@https://api.example.com" }),
    }),
  ).not.toThrow();
  expect(() =>
    believeGone({
      what: "index x",
      managedBy: "bob@https://api.example.com",
      asking: current,
      settings: settings({ "mgmt:movedFrom": "carol@https://api.example.com" }),
    }),
  ).toThrow(IdentityMismatchError);
});
