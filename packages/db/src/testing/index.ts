export {
  type CreateTestDatabaseOptions,
  createTestDatabase,
  type TestDatabase,
} from './test-database.js';
export {
  makeAgent,
  makeIntegration,
  makeMcpServer,
  makeSsoConfig,
  makeUser,
  makeWorkspace,
} from './factories.js';
