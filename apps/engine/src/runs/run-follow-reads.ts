// What followers of runs read after each wake-up, shared: the followers of one run are woken by the
// same news, so those that ask in one turn of the event loop get one query between them (one per
// turn for all runs, for the run's progress; one per run and position, for its events). Every
// follower asks after registering for the next news (rejoin-handler.ts), and a batch is sent only
// after the turn in which it was asked for, so no follower is given a read older than its
// registration. Plain SQL on the pool: Prisma cannot batch these, and they are the hot path of
// 1,000 rejoined streams.
import { perTurnLoader } from '@agentplane/server-kit';
import type { AgentDb } from '../database/agent-db.js';
import type { StoredEvent } from './run-event-log.js';
import type { RunStatus } from './run-records.js';

/** Events read per query: a long run is replayed in pages. */
export const REPLAY_PAGE = 500;

export type RunProgress = { status: RunStatus; last_seq: number };

export type RunFollowReads = {
  /** The run's status and last stored seq; undefined once it is gone (pruned). */
  progress: (runId: string) => Promise<RunProgress | undefined>;
  /** The run's stored events after `after`, oldest first, at most REPLAY_PAGE. */
  events: (runId: string, after: number) => Promise<StoredEvent[]>;
};

const PROGRESS = {
  name: 'follow-run-progress',
  text: 'SELECT id, status, last_seq FROM agent_runs WHERE agent_id = $1 AND id = ANY($2::text[])',
};

// One page per (run, position) asked for, each numbered by its place in the arrays.
const EVENTS = {
  name: 'follow-run-events',
  text: `
  SELECT k.i::int AS i, e.seq, e.data
  FROM unnest($2::text[], $3::int[]) WITH ORDINALITY AS k(run_id, after, i)
  CROSS JOIN LATERAL (
    SELECT seq, data FROM run_events
    WHERE agent_id = $1 AND run_id = k.run_id AND seq > k.after ORDER BY seq LIMIT $4) e
  ORDER BY k.i, e.seq`,
};

/** Each distinct key once, and where every asked key's answer is among them. */
function distinct<K>(keys: readonly K[], keyOf: (key: K) => string) {
  const index = new Map<string, number>();
  const unique: K[] = [];
  const positions = keys.map((key) => {
    const text = keyOf(key);
    let position = index.get(text);
    if (position === undefined) {
      position = unique.push(key) - 1;
      index.set(text, position);
    }
    return position;
  });
  return { unique, positions };
}

export function createRunFollowReads(pool: AgentDb, agentId: string): RunFollowReads {
  const progress = perTurnLoader<string, RunProgress | undefined>(async (runIds) => {
    const { unique } = distinct(runIds, (id) => id);
    const { rows } = await pool.query<RunProgress & { id: string }>({ ...PROGRESS, values: [agentId, unique] });
    const byId = new Map(rows.map((row) => [row.id, { status: row.status, last_seq: row.last_seq }]));
    return runIds.map((id) => byId.get(id));
  });

  type Position = { runId: string; after: number };
  const events = perTurnLoader<Position, StoredEvent[]>(async (positions) => {
    const asked = distinct(positions, ({ runId, after }) => `${after}:${runId}`);
    const { rows } = await pool.query<StoredEvent & { i: number }>({
      ...EVENTS,
      values: [agentId, asked.unique.map((p) => p.runId), asked.unique.map((p) => p.after), REPLAY_PAGE],
    });
    const pages: StoredEvent[][] = asked.unique.map(() => []);
    for (const { i, seq, data } of rows) pages[i - 1]?.push({ seq, data });
    return asked.positions.map((position) => pages[position] ?? []);
  });

  return {
    progress: (runId) => progress.load(runId),
    events: (runId, after) => events.load({ runId, after }),
  };
}
