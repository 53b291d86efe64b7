export { type CreatePrismaOptions, createPrisma, type Db, querySql, type SqlRunner, type Tx } from './client.js';
export {
  agentIdOfEngineRole,
  checkpointSchemaName,
  ENGINE_GROUP_ROLE,
  engineRoleName,
  POOL_NAME,
  POOL_ROLE_PATTERN,
  poolRoleName,
} from './engine-roles/engine-role-names.js';
export {
  agentsWithoutEngineRole,
  applyEngineRoleSettings,
  applyRoleSettings,
  canCreateRoles,
  dropEngineRole,
  type EngineRoleSettings,
  provisionEngineRole,
  readEngineConnectionUse,
  rotateEngineRolePassword,
} from './engine-roles/engine-roles.js';
export {
  placeAgentRole,
  poolsHoldingAgent,
  provisionPoolRole,
  readMisplacedAgents,
  rotatePoolRolePassword,
} from './engine-roles/pool-roles.js';
export { isForeignKeyViolation, isRetryableTransactionError, isUniqueViolation } from './errors.js';
export { Prisma } from './generated/prisma/client.js';
export {
  AgentFramework,
  IntegrationProvider,
  MembershipRole,
} from './generated/prisma/enums.js';
export type * from './generated/prisma/models.js';
export { type ManagerLockName, takeManagerLock } from './manager-locks.js';
export { type MigrationStatus, migrate, readMigrationStatus } from './migrations/migrate.js';
export { MigrationChecksumError } from './migrations/migration-files.js';
export {
  type AgentKeyring,
  type AgentPlacement,
  createAgentKeyring,
  createAgentSecretBox,
  createSecretBox,
  deriveAgentKey,
  derivePoolKey,
  isSealed,
  isSealedWithOtherKey,
  isSecretKey,
  parseSecretKey,
  type SecretBox,
  SecretKeyError,
} from './secrets/index.js';
export { inTransaction } from './transaction.js';
