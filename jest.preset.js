// Shared jest setup: native ESM (run with --experimental-vm-modules), TypeScript through swc.
// Workspace packages resolve to their TypeScript sources through the "agentplane-source" export condition
// (a name of our own, so that third-party packages publishing TypeScript under "source" are not picked up),
// so tests never run against a stale dist/.
import { fileURLToPath } from 'node:url';

const dbTesting = (file) => fileURLToPath(new URL(`./packages/db/dist/testing/${file}`, import.meta.url));

/**
 * @param {{ database?: boolean } & import('jest').Config} options
 *   database: start one PostgreSQL per run with a migrated template that suites copy
 *   (packages/db must be built: turbo's test task depends on it).
 */
export function jestConfig({ database = false, ...overrides } = {}) {
  return {
    testEnvironment: 'node',
    extensionsToTreatAsEsm: ['.ts'],
    transform: {
      '^.+\\.ts$': [
        '@swc/jest',
        {
          jsc: { parser: { syntax: 'typescript' }, target: 'es2023' },
          module: { type: 'es6' },
          sourceMaps: 'inline',
        },
      ],
    },
    moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
    testEnvironmentOptions: { customExportConditions: ['agentplane-source', 'node', 'node-addons'] },
    testMatch: ['<rootDir>/src/**/*.test.ts'],
    testTimeout: 30_000,
    ...(database ? { globalSetup: dbTesting('global-setup.js'), globalTeardown: dbTesting('global-teardown.js') } : {}),
    ...overrides,
  };
}
