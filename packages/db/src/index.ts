export { createPrisma, type CreatePrismaOptions, type Db, type Tx } from './client.js';
export { Prisma } from './generated/prisma/client.js';
export type * from './generated/prisma/models.js';
export {
  AgentFramework,
  IntegrationProvider,
  MembershipRole,
} from './generated/prisma/enums.js';
export { isForeignKeyViolation, isUniqueViolation } from './errors.js';
export { migrate, readMigrationStatus, type MigrationStatus } from './migrations/migrate.js';
export { MigrationChecksumError } from './migrations/migration-files.js';
