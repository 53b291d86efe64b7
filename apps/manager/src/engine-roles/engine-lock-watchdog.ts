// Ends engine sessions that hold what everybody else waits for. An engine role may UPDATE or DELETE
// whole shared tables, which lets it LOCK TABLE them in any mode, and its role's statement and idle
// timeouts are only defaults a session may SET to 0: one tenant's engine could then stall every
// tenant and the manager's migrations. A pool engine's sessions log in as its pool's role and act as
// an agent's after SET LOCAL ROLE: pg_stat_activity names the login, so pool roles are watched too.
// Raw SQL because Prisma has no view of pg_stat_activity.
import {
  agentIdOfEngineRole,
  type Db,
  ENGINE_GROUP_ROLE,
  type EngineRoleSettings,
  POOL_ROLE_PATTERN,
} from '@agentplane/db';
import type { Logger } from '@agentplane/server-kit';

export type EngineLockWatchdogSettings = {
  /** How often the sessions are checked. */
  intervalMs: number;
  /** How long another backend may wait for a lock an engine session holds. */
  blockingGraceMs: number;
  /** The role settings the watchdog enforces whatever a session SET. */
  roles: Pick<EngineRoleSettings, 'statementTimeoutMs' | 'idleInTransactionTimeoutMs'>;
};

export type TerminationReason = 'blocking' | 'idle_in_transaction' | 'statement';

export type TerminatedBackend = { pid: number; role: string; reason: TerminationReason; terminated: boolean };

const REASON_TEXT: Record<TerminationReason, string> = {
  blocking: 'it held a lock other sessions waited for longer than ENGINE_DB_BLOCKING_GRACE_MS',
  idle_in_transaction: 'it sat idle in a transaction longer than ENGINE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS',
  statement: 'it ran one statement longer than ENGINE_DB_STATEMENT_TIMEOUT_MS',
};

export const MISSING_SIGNAL_BACKEND =
  "The manager's database user (DATABASE_URL) may not terminate engine sessions, so the engine lock " +
  'watchdog cannot end one that holds locks every other session waits for. Grant it: ' +
  'GRANT pg_signal_backend TO <user>.';

// A backend that waits for a lock itself is queued, not the cause: only sessions that wait for no lock
// count as blockers. The timeouts get one interval more, so that PostgreSQL ends a session that kept
// its role settings before the watchdog would.
const SWEEP_SQL = `
WITH engine_backends AS (
  SELECT a.pid, a.usename::text AS role, a.state, a.query_start, a.state_change, a.wait_event_type
  FROM pg_stat_activity a
  WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
    AND (a.usesysid IN (SELECT m.member FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
                        WHERE g.rolname = $1)
         OR a.usename ~ $5)
),
blockers AS (
  SELECT DISTINCT unnest(pg_blocking_pids(w.pid)) AS pid FROM pg_locks w
  WHERE NOT w.granted AND w.waitstart < now() - make_interval(secs => $2 / 1000.0)
),
verdicts AS (
  SELECT e.pid, e.role, CASE
      WHEN e.wait_event_type IS DISTINCT FROM 'Lock' AND e.pid IN (SELECT pid FROM blockers) THEN 'blocking'
      WHEN e.state IN ('idle in transaction', 'idle in transaction (aborted)')
           AND e.state_change < now() - make_interval(secs => $3 / 1000.0) THEN 'idle_in_transaction'
      WHEN e.state = 'active' AND e.query_start < now() - make_interval(secs => $4 / 1000.0) THEN 'statement'
    END AS reason
  FROM engine_backends e
)
SELECT pid, role, reason, pg_terminate_backend(pid) AS terminated FROM verdicts WHERE reason IS NOT NULL`;

/** One check: terminates the engine sessions past a limit, and says which and why. */
export async function terminateRunawayEngineSessions(
  db: Db,
  settings: EngineLockWatchdogSettings,
): Promise<TerminatedBackend[]> {
  const margin = settings.intervalMs;
  return db.$queryRawUnsafe<TerminatedBackend[]>(
    SWEEP_SQL,
    ENGINE_GROUP_ROLE,
    settings.blockingGraceMs,
    settings.roles.idleInTransactionTimeoutMs + margin,
    settings.roles.statementTimeoutMs + margin,
    POOL_ROLE_PATTERN,
  );
}

/** True when the connected user may terminate engine roles' sessions (superuser or pg_signal_backend). */
export async function canSignalEngineBackends(db: Db): Promise<boolean> {
  const [row] = await db.$queryRawUnsafe<{ allowed: boolean }[]>(
    "SELECT pg_has_role(current_user, 'pg_signal_backend', 'USAGE') AS allowed",
  );
  return row?.allowed === true;
}

export type EngineLockWatchdog = { stop: () => Promise<void> };

/**
 * Checks every `intervalMs` until stopped. Each manager replica may run one: terminating a session twice
 * is harmless.
 */
export async function startEngineLockWatchdog(
  db: Db,
  settings: EngineLockWatchdogSettings,
  logger: Pick<Logger, 'warn'>,
): Promise<EngineLockWatchdog> {
  if (!(await canSignalEngineBackends(db))) logger.warn(MISSING_SIGNAL_BACKEND);
  let sweeping: Promise<void> | undefined;
  const sweep = async () => {
    for (const backend of await terminateRunawayEngineSessions(db, settings)) {
      logger.warn(
        { agentId: agentIdOfEngineRole(backend.role), role: backend.role, pid: backend.pid, reason: backend.reason },
        backend.terminated
          ? `terminated an engine session: ${REASON_TEXT[backend.reason]}`
          : `could not terminate an engine session (${REASON_TEXT[backend.reason]}): ${MISSING_SIGNAL_BACKEND}`,
      );
    }
  };
  // A check still running when the next is due makes that one skip rather than queue up.
  const timer = setInterval(() => {
    if (sweeping !== undefined) return;
    sweeping = sweep()
      .catch((error: unknown) => logger.warn({ err: error }, 'the engine lock watchdog could not check sessions'))
      .finally(() => {
        sweeping = undefined;
      });
  }, settings.intervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await sweeping;
    },
  };
}
