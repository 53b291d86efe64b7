// Mutual exclusion between manager replicas, as a row lock of `manager_locks`: engine roles have no
// privilege on that table, so none can take or hold these locks, as any role can an advisory lock.
import type { Tx } from './client.js';

export type ManagerLockName =
  | 'engine-roles-upgrade'
  | 'signing-key-creation'
  | 'engine-credentials'
  | 'engine-pools'
  | 'agent-versions-backfill';

/** Waits for the lock and holds it until the transaction ends. */
export async function takeManagerLock(tx: Tx, name: ManagerLockName): Promise<void> {
  const rows = await tx.$queryRaw<unknown[]>`SELECT name FROM manager_locks WHERE name = ${name} FOR UPDATE`;
  if (rows.length !== 1) throw new Error(`No manager lock "${name}": are the migrations applied?`);
}
