// The upgrade to engine roles, run by every manager at start-up: agents created before engine roles
// existed get their role and checkpoint schema, every role gets the current settings, and configs whose secrets were sealed with the
// platform key (or an agent key of a rotated platform key) are sealed again with the agent's key.
// Idempotent, and safe with several replicas starting together: each batch holds a manager lock,
// under which it reads what is still missing.
import {
  type AgentKeyring,
  agentsWithoutEngineRole,
  applyEngineRoleSettings,
  type Db,
  type EngineRoleSettings,
  inTransaction,
  provisionEngineRole,
  type SecretBox,
  takeManagerLock,
} from '@agentplane/db';
import type { EnginePoolSettings } from '../engine-pools/engine-pool-settings.js';
import { publishEngineConfigs } from '../publishing/publish-engine-configs.js';
import type { ModelPrices } from '../usage/model-prices.js';

const BATCH_SIZE = 100;

export type UpgradeEngineRolesOptions = {
  box: SecretBox;
  agentKeys: AgentKeyring;
  prices: ModelPrices;
  /** The operator's pools (ENGINE_POOLS): where a pooled agent that others call is served. */
  enginePools: EnginePoolSettings;
  engineRoles: EngineRoleSettings;
  /** AGENT_VERSION_RETENTION: how many of an agent's newest versions are kept. */
  versionRetention: number;
};

/** Returns how many agents were given a role. */
export async function upgradeEngineRoles(db: Db, options: UpgradeEngineRolesOptions): Promise<number> {
  let provisioned = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const batch = await inTransaction(db, async (tx) => {
      await takeManagerLock(tx, 'engine-roles-upgrade');
      const agents = await tx.agent.findMany({
        where: { id: { gt: after } },
        select: { id: true },
        orderBy: { id: 'asc' },
        take: BATCH_SIZE,
      });
      const ids = agents.map((agent) => agent.id);
      const missing = await agentsWithoutEngineRole(tx, ids);
      for (const id of missing) await provisionEngineRole(tx, id, options.engineRoles);
      // Roles made before a setting existed or changed (ENGINE_DB_*) get it at their engine's next login.
      for (const id of ids.filter((id) => !missing.includes(id))) {
        await applyEngineRoleSettings(tx, id, options.engineRoles);
      }
      // Re-seals what its engine could not open; a config already sealed with the agent's key is left as it is.
      await publishEngineConfigs(tx, {
        agentIds: ids,
        box: options.box,
        agentKeys: options.agentKeys,
        prices: options.prices,
        poolUrls: options.enginePools.urls,
        maxConfigBytes: Number.POSITIVE_INFINITY,
        change: { cause: 'upgrade', authorId: null },
        versionRetention: options.versionRetention,
      });
      return { ids, provisioned: missing.length };
    });
    provisioned += batch.provisioned;
    const last = batch.ids.at(-1);
    if (last === undefined || batch.ids.length < BATCH_SIZE) return provisioned;
    after = last;
  }
}
