// At start-up, every agent published before versions existed gets a version for the config its
// engine runs now (cause backfill): its history starts there, and its runs from then on name it.
// Idempotent, and safe with several replicas starting together (a manager lock per batch).
import { type AgentKeyring, type Db, inTransaction, type SecretBox, takeManagerLock } from '@agentplane/db';
import { openConfig } from '../agents/agent-response.js';
import { readAgentsWithResources } from '../publishing/read-agents-with-resources.js';
import { recordAgentVersions } from './record-agent-versions.js';
import { snapshotOf } from './version-snapshot.js';

const BATCH_SIZE = 100;

/** Returns how many agents were given their first version. */
export async function backfillAgentVersions(
  db: Db,
  options: { box: SecretBox; agentKeys: AgentKeyring; versionRetention: number },
): Promise<number> {
  let backfilled = 0;
  for (;;) {
    const count = await inTransaction(db, async (tx) => {
      await takeManagerLock(tx, 'agent-versions-backfill');
      // FOR SHARE: a publish of one of them waits, so the version read is the one recorded.
      const missing = await tx.$queryRaw<{ agent_id: string }[]>`
        SELECT e.agent_id::text AS agent_id FROM engine_configs e
        WHERE NOT EXISTS (SELECT 1 FROM agent_versions v WHERE v.agent_id = e.agent_id AND v.version = e.version)
        ORDER BY e.agent_id LIMIT ${BATCH_SIZE} FOR SHARE OF e`;
      const agents = await readAgentsWithResources(
        tx,
        missing.map((row) => row.agent_id),
      );
      await recordAgentVersions(
        tx,
        agents.flatMap((agent) => {
          const published = agent.engineConfig;
          if (published === null) return [];
          const placement = { agentId: agent.id, pool: agent.deploymentPool };
          const config = openConfig(placement, published.config, options.agentKeys);
          return [
            {
              agentId: agent.id,
              workspaceId: agent.workspaceId,
              version: Number(published.version),
              snapshot: snapshotOf(agent, config, options.box),
              cause: 'backfill' as const,
            },
          ];
        }),
        { cause: 'backfill', authorId: null },
        options.versionRetention,
      );
      return missing.length;
    });
    backfilled += count;
    if (count < BATCH_SIZE) return backfilled;
  }
}
