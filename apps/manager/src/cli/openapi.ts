// `agentplane-manager openapi`: prints the OpenAPI document of every route, without a database, so that
// clients (the console's typed API client) are generated at build time from what the manager serves.
import { randomBytes } from 'node:crypto';
import { createPrisma } from '@agentplane/db';
import { createLogger } from '@agentplane/server-kit';
import { createManagerApp } from '../app.js';
import { loadManagerConfig } from '../config.js';
import { createManagerOpenApi } from '../openapi/manager-openapi.js';
import type { CliIo } from './cli-command.js';

// Building the app connects nothing: the client only dials on its first query, and none is made here.
const NO_DATABASE = 'postgresql://openapi.invalid/none';

export async function runOpenApi(_args: string[], io: CliIo): Promise<number> {
  const config = loadManagerConfig({ DATABASE_URL: NO_DATABASE, SECRETS_KEY: randomBytes(32).toString('base64') });
  const db = createPrisma(config.databaseUrl);
  try {
    const app = createManagerApp({ config, db, logger: createLogger({ name: 'openapi', level: 'silent' }) });
    const document = createManagerOpenApi(app.apiRoutes, { sessionCookie: config.session.cookieName });
    io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    return 0;
  } finally {
    await db.$disconnect();
  }
}
