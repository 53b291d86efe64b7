// What every manager brings up to date in the database at start, before it serves: idempotent, and
// safe with several replicas starting together.
import type { Db } from '@agentplane/db';
import { type PoolProvisioning, provisionEnginePools } from '../engine-pools/provision-engine-pools.js';
import { type UpgradeEngineRolesOptions, upgradeEngineRoles } from '../engine-roles/upgrade-engine-roles.js';
import { sealPlaintextSecrets } from '../secrets/seal-plaintext-secrets.js';
import { backfillAgentVersions } from '../versions/backfill-agent-versions.js';

export type StoredDataUpgrade = PoolProvisioning & {
  /** Rows whose plaintext secrets were sealed. */
  sealed: number;
  /** Agents given their engine database role. */
  provisioned: number;
  /** Agents published before versions existed, given a version for their current config. */
  versioned: number;
};

export type StoredDataUpgradeOptions = UpgradeEngineRolesOptions;

export async function upgradeStoredData(db: Db, options: StoredDataUpgradeOptions): Promise<StoredDataUpgrade> {
  const sealed = await sealPlaintextSecrets(db, options.box);
  // Re-seals each agent's engine config with its placement's key, where another key sealed it.
  const provisioned = await upgradeEngineRoles(db, options);
  // After the agents' roles, which the pools' roles are granted.
  const pools = await provisionEnginePools(db, options.enginePools);
  // After the re-seal above, which may have published new versions of its own.
  const versioned = await backfillAgentVersions(db, options);
  return { sealed, provisioned, versioned, ...pools };
}
