/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  transform: { "^.+\\.ts$": "ts-jest" },
  // e2e tests share one CPU-heavy Pulumi engine per test; two workers match the machine.
  maxWorkers: 2,
  testTimeout: 300000,
  modulePathIgnorePatterns: ["<rootDir>/dist/"],
};
