export { type CreatePrismaOptions, createPrisma, type Db, querySql, type Tx } from './client.js';
export { isForeignKeyViolation, isRetryableTransactionError, isUniqueViolation } from './errors.js';
export { Prisma } from './generated/prisma/client.js';
export {
  AgentFramework,
  IntegrationProvider,
  MembershipRole,
} from './generated/prisma/enums.js';
export type * from './generated/prisma/models.js';
export { type MigrationStatus, migrate, readMigrationStatus } from './migrations/migrate.js';
export { MigrationChecksumError } from './migrations/migration-files.js';
export { createSecretBox, isSealed, parseSecretKey, type SecretBox, SecretKeyError } from './secrets/secret-box.js';
export { inTransaction } from './transaction.js';
