/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  transform: { "^.+\\.ts$": "ts-jest" },
  // Four workers on 2 cores: the files wait part of their time (timeouts, Retry-After, a
  // PostgreSQL restart, a dead worker's confirmation), and the third and fourth files fill those
  // waits (CONTRIBUTING.md, "The suite's time").
  maxWorkers: 4,
  testTimeout: 300000,
  // The fleet imports pulumi-mgmt by the name its users see (tsconfig.json "paths"): tests load the
  // source, one instance of each module beside what they import from provider/ themselves. Not the
  // permanent provider modules: a program resolves those in the installed package, and only a
  // module found there is serialized into state as a require() (dynamicDoor.ts).
  moduleNameMapper: { "^pulumi-mgmt/internal/(?!providers/)(.*)$": "<rootDir>/provider/$1" },
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
