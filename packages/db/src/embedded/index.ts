export { ensureDatabase, findFreePort } from './database-admin.js';
export {
  type EmbeddedPostgresOptions,
  type RunningPostgres,
  startEmbeddedPostgres,
} from './embedded-postgres.js';
export { type LocalPostgres, localDataDir, startLocalPostgres } from './local-postgres.js';
