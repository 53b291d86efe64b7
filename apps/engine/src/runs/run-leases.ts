// Crash safety of running runs. Every replica has an owner id; the runs it runs hold a lease that it
// renews for all of them at once, in one UPDATE every third of the lease. Every replica also sweeps:
// a running run whose lease has expired lost its engine (killed, partitioned), so it is marked failed
// and gets a RUN_ERROR as its last event, and whoever follows it is told, instead of waiting forever.
// The renewal returns the runs someone asked to cancel, so a cancel can ride on this heartbeat.
import { EventType } from '@ag-ui/core';
import type { Logger } from '@agentplane/server-kit';
import { notifyOnRunChannel } from '../listen/agent-channels.js';
import type { Queryable } from '../threads/thread-store.js';
import { QUEUE_NEWS_SQL, RUN_NEWS_SQL } from './run-notifications.js';

export const RUN_LEASE_MS_DEFAULT = 30_000;
export const ENGINE_LOST = 'engine lost';
const ENGINE_LOST_CODE = 'engine_lost';

/** The event a lost run ends with, as stored (and so as replayed). */
export const ENGINE_LOST_EVENT = JSON.stringify({
  type: EventType.RUN_ERROR,
  message: ENGINE_LOST,
  code: ENGINE_LOST_CODE,
});

const RENEW = `
  UPDATE agent_runs SET lease_expires_at = now() + $3::float8 * interval '1 millisecond'
  WHERE agent_id = $1 AND owner = $2 AND status = 'running'
  RETURNING id, cancel_requested_at IS NOT NULL AS cancel_requested`;

// One statement: the run is failed, its RUN_ERROR appended after its last stored event, and the news
// sent, all or nothing. Two replicas sweeping at once: the second finds the row no longer running.
const SWEEP = `
  WITH lost AS (
    UPDATE agent_runs
    SET status = 'failed', error = $2, error_code = $4, finished_at = now(), lease_expires_at = NULL,
        last_seq = last_seq + 1
    WHERE agent_id = $1 AND status = 'running' AND lease_expires_at < now()
    RETURNING agent_id, id, last_seq),
  ended AS (
    INSERT INTO run_events (agent_id, run_id, seq, data) SELECT agent_id, id, last_seq, $3 FROM lost)
  SELECT id, ${notifyOnRunChannel(RUN_NEWS_SQL('id'))}, ${notifyOnRunChannel(QUEUE_NEWS_SQL)}
  FROM lost`;

export async function renewLeases(
  db: Queryable,
  agentId: string,
  owner: string,
  leaseMs: number,
): Promise<{ id: string; cancel_requested: boolean }[]> {
  return (await db.query<{ id: string; cancel_requested: boolean }>(RENEW, [agentId, owner, leaseMs])).rows;
}

/** Fails the agent's runs whose lease expired; returns their ids. */
export async function sweepLostRuns(db: Queryable, agentId: string): Promise<string[]> {
  return (await db.query<{ id: string }>(SWEEP, [agentId, ENGINE_LOST, ENGINE_LOST_EVENT, ENGINE_LOST_CODE])).rows.map(
    (row) => row.id,
  );
}

export type RunLeases = { stop: () => Promise<void> };

/** Renews this replica's leases and sweeps lost runs every third of `leaseMs`, until stopped. */
export function startRunLeases(options: {
  db: Queryable;
  agentId: string;
  owner: string;
  leaseMs: number;
  logger: Logger;
  /** Told the runs whose cancel was asked for: the fallback for a missed `cancel:` notification. */
  onCancelRequested?: (runIds: string[]) => void;
}): RunLeases {
  const { db, agentId, owner, leaseMs } = options;
  const log = options.logger.child({ component: 'run-leases' });
  let beat: Promise<void> | undefined;
  const heartbeat = () => {
    if (beat !== undefined) return;
    beat = (async () => {
      const renewed = await renewLeases(db, agentId, owner, leaseMs);
      const cancels = renewed.filter((run) => run.cancel_requested).map((run) => run.id);
      if (cancels.length > 0) options.onCancelRequested?.(cancels);
      const lost = await sweepLostRuns(db, agentId);
      if (lost.length > 0) log.warn({ runs: lost }, 'runs whose engine was lost marked failed');
    })()
      .catch((error: unknown) => log.warn({ err: error }, 'could not renew run leases'))
      .finally(() => {
        beat = undefined;
      });
  };
  heartbeat();
  const timer = setInterval(heartbeat, Math.max(Math.floor(leaseMs / 3), 1));
  return {
    stop: async () => {
      clearInterval(timer);
      await beat;
    },
  };
}
