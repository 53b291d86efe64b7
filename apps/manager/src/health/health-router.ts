import type { MigrationStatus } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import { Router } from 'express';

export type HealthDependencies = {
  /** Reads which migrations are pending; rejects when the database cannot be reached. */
  readMigrationStatus: () => Promise<MigrationStatus>;
};

export function healthRouter({ readMigrationStatus }: HealthDependencies): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (req, res) => {
    let status: MigrationStatus;
    try {
      status = await readMigrationStatus();
    } catch (error) {
      req.log.warn({ err: error }, 'readiness: database unreachable');
      throw new AppError('service_unavailable', 'The database is unreachable.');
    }
    if (status.pending.length > 0) {
      throw new AppError(
        'service_unavailable',
        `Migrations are pending: ${status.pending.join(', ')}. Run \`pnpm db:migrate\`.`,
      );
    }
    res.json({ status: 'ready', migrations: status.applied.length });
  });
  return router;
}
