// At start, every manager makes the roles of the operator's pools (ENGINE_POOLS) and brings them to
// the current settings, then grants each pooled agent's role to its pool's role where that is missing
// (an agent placed on a pool an operator added since, or grants changed by hand) and revokes grants its
// placement does not name. Idempotent; the manager lock keeps replicas that start together apart. The
// agent's row is locked before its grants change, as a move does, and read again under the lock: a move
// committed meanwhile is what the grants follow. SQL, because Prisma cannot lock a row.
import {
  type Db,
  inTransaction,
  placeAgentRole,
  provisionPoolRole,
  readMisplacedAgents,
  takeManagerLock,
} from '@agentplane/db';
import type { EnginePoolSettings } from './engine-pool-settings.js';

export type PoolProvisioning = {
  /** Agents whose pool grants were brought in line with their placement. */
  placed: number;
  /** Agents placed on a pool that ENGINE_POOLS does not list (any more): no engine_url, grants left as they are. */
  unserved: number;
};

export async function provisionEnginePools(db: Db, pools: EnginePoolSettings): Promise<PoolProvisioning> {
  return inTransaction(db, async (tx) => {
    await takeManagerLock(tx, 'engine-pools');
    for (const pool of pools.urls.keys()) await provisionPoolRole(tx, pool, pools.roles);
    let placed = 0;
    for (const { agentId } of await readMisplacedAgents(tx)) {
      const [agent] = await tx.$queryRaw<{ pool: string | null }[]>`
        SELECT deployment_pool AS pool FROM agents WHERE id = ${agentId}::uuid FOR NO KEY UPDATE`;
      // Deleted meanwhile, or on a pool whose role this manager does not make.
      if (agent === undefined || (agent.pool !== null && !pools.urls.has(agent.pool))) continue;
      await placeAgentRole(tx, agentId, agent.pool ?? undefined);
      placed += 1;
    }
    const unserved = await tx.agent.count({
      where: { deploymentPool: { not: null, notIn: [...pools.urls.keys()] } },
    });
    return { placed, unserved };
  });
}
