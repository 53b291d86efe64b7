import { AppError } from '@agentplane/server-kit';
import { Router } from 'express';

export function healthRouter(): Router {
  const router = Router();
  // Until an agent config is loaded the engine cannot serve runs, so it is not healthy.
  router.get('/health', () => {
    throw new AppError('service_unavailable', 'No agent config is loaded yet.');
  });
  return router;
}
