/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  transform: { "^.+\\.ts$": "ts-jest" },
  // e2e tests share one CPU-heavy Pulumi engine per test; two workers match the machine.
  maxWorkers: 2,
  testTimeout: 300000,
  modulePathIgnorePatterns: ["<rootDir>/dist/"],
  testPathIgnorePatterns: ["/node_modules/"],
  // No MGMT_* or PULUMI_* variable of the developer's shell reaches a test.
  setupFiles: ["<rootDir>/test/support/isolate.ts"],
  // npm run test:profile: each test's name reaches the Pulumi CLIs it starts.
  setupFilesAfterEnv: ["<rootDir>/test/support/profileTest.ts"],
  // dist/ (what the dynamic provider runs) is rebuilt when a source is newer.
  globalSetup: "<rootDir>/test/support/globalSetup.ts",
  globalTeardown: "<rootDir>/test/support/globalTeardown.ts",
};
