import { createPrisma } from '@agentplane/db';
import { ConfigError, createLogger, serve } from '@agentplane/server-kit';
import { createManagerApp } from './app.js';
import { loadManagerConfig } from './config.js';

async function main(): Promise<void> {
  const config = loadManagerConfig();
  const logger = createLogger({ name: 'manager', level: config.logLevel });
  const db = createPrisma(config.databaseUrl);
  const app = createManagerApp({ config, db, logger });
  await serve(app, {
    port: config.port,
    host: config.host,
    logger,
    handleSignals: true,
    onClose: () => db.$disconnect(),
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
