/**
 * `npm run conformance`: the conformance suite alone, against the service named by MGMT_*
 * variables (or the emulator when MGMT_BASE_URL is unset). Unlike jest.config.js it keeps the
 * MGMT_* variables: reaching the service they name is the point of this run.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test/conformance"],
  transform: { "^.+\\.ts$": "ts-jest" },
  testTimeout: 60000,
  globalSetup: "<rootDir>/test/support/globalSetup.ts",
  globalTeardown: "<rootDir>/test/support/globalTeardown.ts",
};
