import { type Db, readMigrationStatus } from '@agentplane/db';
import { type Logger, notFoundHandler, problemHandler, requestLogger } from '@agentplane/server-kit';
import express, { type Express } from 'express';
import type { ManagerConfig } from './config.js';
import { healthRouter } from './health/health-router.js';

export type ManagerDependencies = {
  config: ManagerConfig;
  db: Db;
  logger: Logger;
};

/** Builds the manager's Express app from its dependencies, without listening. */
export function createManagerApp({ config, logger }: ManagerDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(requestLogger(logger));

  const api = express.Router();
  api.use(healthRouter({ readMigrationStatus: () => readMigrationStatus(config.databaseUrl) }));
  app.use('/api/v1', api);

  app.use(notFoundHandler);
  app.use(problemHandler);
  return app;
}
