import { AppError } from '@agentplane/server-kit';
import { z } from 'zod';
import type { ApiRouter } from '../http/api-router.js';
import { READINESS_REUSE_MS, type Readiness } from './readiness.js';

export type HealthDependencies = {
  /** The current readiness, shared by concurrent probes and reused briefly (reuseFor). */
  readiness: () => Promise<Readiness>;
};

const TAG = 'health';

export function addHealthRoutes(api: ApiRouter, { readiness }: HealthDependencies): void {
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
      summary: `Readiness: the database is reachable, every migration is applied and the manager may create engine roles. Checked through the manager's pool; probes share one check, whose answer is reused for ${READINESS_REUSE_MS} ms`,
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
    async (_input, _req, res) => {
      const answer = await readiness();
      if (!answer.ready) throw new AppError('service_unavailable', answer.detail);
      res.json({ status: 'ready', migrations: answer.migrations });
    },
  );
}
