// What every manager brings up to date in the database at start, before it serves: idempotent, and
// safe with several replicas starting together.
import type { Db } from '@agentplane/db';
import { type UpgradeEngineRolesOptions, upgradeEngineRoles } from '../engine-roles/upgrade-engine-roles.js';
import { sealPlaintextSecrets } from '../secrets/seal-plaintext-secrets.js';

export type StoredDataUpgrade = {
  /** Rows whose plaintext secrets were sealed. */
  sealed: number;
  /** Agents given their engine database role. */
  provisioned: number;
};

export async function upgradeStoredData(db: Db, options: UpgradeEngineRolesOptions): Promise<StoredDataUpgrade> {
  const sealed = await sealPlaintextSecrets(db, options.box);
  const provisioned = await upgradeEngineRoles(db, options);
  return { sealed, provisioned };
}
