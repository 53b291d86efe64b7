// The locks that serialise an agent's run queue, as row locks of `run_queue_locks`. Row-level security
// lets only the agent's own engine role insert, update or lock its rows; an advisory lock's key, by
// contrast, can be taken and held by any role on the server, and another tenant's engine knows the
// agent's id. Keys share 256 slots per agent and scope (migration 20261129010000_run_queue_locks), so
// the table stays bounded without cleanup; two keys in one slot merely wait for each other.
import type { Queryable } from '../threads/thread-store.js';

export type RunQueueLockScope = 'thread' | 'caller';

// One statement, safe under concurrency: the insert of a missing row waits for a concurrent insert of
// the same row to end, then takes the update path; the update path waits for the row's lock. Either
// way the row is locked by this transaction until it ends, and by no one else meanwhile.
const TAKE = `
  INSERT INTO run_queue_locks (agent_id, scope, slot) VALUES ($1, $2, hashtextextended($3, 0) & 255)
  ON CONFLICT (agent_id, scope, slot) DO UPDATE SET taken_at = now()`;

/** Waits for the lock of `key` and holds it until the transaction ends; call it inside one. */
export async function takeRunQueueLock(
  db: Queryable,
  agentId: string,
  scope: RunQueueLockScope,
  key: string,
): Promise<void> {
  await db.query(TAKE, [agentId, scope, key]);
}
