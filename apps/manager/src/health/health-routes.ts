import type { MigrationStatus } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import { z } from 'zod';
import { MISSING_CREATEROLE } from '../engine-roles/require-create-role.js';
import type { ApiRouter } from '../http/api-router.js';

export type HealthDependencies = {
  /** Reads which migrations are pending; rejects when the database cannot be reached. */
  readMigrationStatus: () => Promise<MigrationStatus>;
  /** Whether the manager's database user may create roles (CREATEROLE), which agent creation needs. */
  canCreateRoles: () => Promise<boolean>;
};

const TAG = 'health';

export function addHealthRoutes(api: ApiRouter, { readMigrationStatus, canCreateRoles }: HealthDependencies): void {
  api.add(
    {
      method: 'get',
      path: '/healthz',
      operationId: 'getLiveness',
      summary: 'Liveness: the process is up',
      tag: TAG,
      access: { kind: 'public' },
      responses: { 200: { description: 'Alive', schema: z.object({ status: z.literal('ok') }) } },
    },
    (_input, _req, res) => {
      res.json({ status: 'ok' });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/readyz',
      operationId: 'getReadiness',
      summary:
        'Readiness: the database is reachable, every migration is applied and the manager may create engine roles',
      tag: TAG,
      access: { kind: 'public' },
      responses: {
        200: {
          description: 'Ready',
          schema: z.object({ status: z.literal('ready'), migrations: z.number().int() }),
        },
      },
      problems: { 503: 'The database is unreachable, migrations are pending, or the database user lacks CREATEROLE' },
    },
    async (_input, req, res) => {
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
      if (!(await canCreateRoles())) throw new AppError('service_unavailable', MISSING_CREATEROLE);
      res.json({ status: 'ready', migrations: status.applied.length });
    },
  );
}
