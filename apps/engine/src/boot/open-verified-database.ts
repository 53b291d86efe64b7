import { type ExpectedLogin, verifyEngineRole } from '../config-source/verify-engine-role.js';
import { type EngineDatabase, openEngineDatabase } from '../database/engine-database.js';
import type { EngineServices } from '../hosting/engine-services.js';

/** The engine's database, once its login is the one expected; closed again when it is not. */
export async function openVerifiedDatabase(
  url: string,
  login: ExpectedLogin,
  services: Pick<EngineServices, 'env' | 'logger'>,
): Promise<EngineDatabase> {
  const database = openEngineDatabase({
    url,
    maxConnections: services.env.dbConnections,
    sharded: login.serves === 'many agents',
    loginRole: login.role,
    logger: services.logger,
  });
  try {
    await verifyEngineRole(database, login, services.logger);
  } catch (error) {
    await database.end();
    throw error;
  }
  return database;
}
