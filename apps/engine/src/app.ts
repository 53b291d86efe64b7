import { type Logger, notFoundHandler, problemHandler, requestLogger } from '@agentplane/server-kit';
import express, { type Express } from 'express';
import { healthRouter } from './health/health-router.js';

export type EngineDependencies = {
  logger: Logger;
};

/** Builds the engine's Express app from its dependencies, without listening. */
export function createEngineApp({ logger }: EngineDependencies): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestLogger(logger));
  app.use(healthRouter());
  app.use(notFoundHandler);
  app.use(problemHandler);
  return app;
}
