export {
  type EngineCredentialsEnv,
  issueTestEngineCredentials,
  issueTestPoolCredentials,
  type PoolCredentialsEnv,
  TEST_ENGINE_ROLE_SETTINGS,
  TEST_PLATFORM_KEY,
} from './engine-credentials.js';
export {
  makeAgent,
  makeIntegration,
  makeMcpServer,
  makeObservabilityConfig,
  makeSsoConfig,
  makeUser,
  makeWorkspace,
} from './factories.js';
export { type RestartablePostgres, startRestartablePostgres } from './restartable-postgres.js';
export { ScratchDirs } from './scratch-dirs.js';
export {
  type CreateTestDatabaseOptions,
  createTestDatabase,
  type TestDatabase,
} from './test-database.js';
