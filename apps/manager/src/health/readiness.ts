// Whether the manager can serve: the database answers, every migration is applied, and its user may
// create engine roles. Checked through the manager's own pool, so a probe opens no connection.
import { canCreateRoles, type Db, readMigrationStatus } from '@agentplane/db';
import type { Logger } from '@agentplane/server-kit';
import { MISSING_CREATEROLE } from '../engine-roles/require-create-role.js';

export type Readiness = { ready: true; migrations: number } | { ready: false; detail: string };

/** How long a check may take; a pooled connect to an address that drops packets would otherwise hang for minutes. */
export const READINESS_TIMEOUT_MS = 3_000;
/** How long an answer is reused for the probes that follow. */
export const READINESS_REUSE_MS = 1_000;

async function check(db: Db, logger: Logger): Promise<Readiness> {
  try {
    // One after the other: a check holds at most one pooled connection.
    if (!(await canCreateRoles(db))) return { ready: false, detail: MISSING_CREATEROLE };
    const status = await readMigrationStatus(db);
    if (status.pending.length > 0) {
      return {
        ready: false,
        detail: `Migrations are pending: ${status.pending.join(', ')}. Run \`pnpm db:migrate\`.`,
      };
    }
    return { ready: true, migrations: status.applied.length };
  } catch (error) {
    logger.warn({ err: error }, 'readiness: database unreachable');
    return { ready: false, detail: 'The database is unreachable.' };
  }
}

/** Never rejects: an unreachable or slow database is an answer too. */
export async function checkReadiness(
  db: Db,
  { logger, timeoutMs = READINESS_TIMEOUT_MS }: { logger: Logger; timeoutMs?: number | undefined },
): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Readiness>((resolve) => {
    timer = setTimeout(
      () => resolve({ ready: false, detail: `The database did not answer within ${timeoutMs} ms.` }),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([check(db, logger), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
