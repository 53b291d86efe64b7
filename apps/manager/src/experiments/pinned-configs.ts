// The configs of the versions an experiment's runs are pinned to, as the agent's engine reads them:
// each version's engine_config from agent_versions (sealed with the platform key, the manager's alone),
// with the agent's *current* budgets (budgets are the workspace's policy of now, not a version's), sealed
// with the key of the engine serving the agent, in pinned_engine_configs. Written when an experiment is
// launched, written again by the worker when the agent moved (its new engine cannot open the old key's
// seals), and pruned when no active experiment of the agent needs a version.
import { mapEngineConfigSecrets, type TEngineConfig } from '@agentplane/contracts';
import type { AgentKeyring, SecretBox, Tx } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import { hasSecretsToSealAgain } from '../publishing/publish-engine-configs.js';
import type { VersionSnapshot } from '../versions/version-snapshot.js';

export type PinnedConfigsOptions = {
  agentId: string;
  workspaceId: string;
  /** The agent's placement: its pool, or null when it has an engine of its own. */
  pool: string | null;
  versions: number[];
  /** Opens the snapshots (the platform key). */
  box: SecretBox;
  agentKeys: AgentKeyring;
};

/** Versions not recorded (never made, or pruned by AGENT_VERSION_RETENTION): the caller's 422. */
export class MissingVersionsError extends Error {
  constructor(readonly versions: number[]) {
    super(`No recorded version ${versions.join(', ')} of the agent`);
  }
}

/**
 * Writes (or seals again) the pinned config of each version; throws MissingVersionsError when a version
 * has no snapshot. Rows already sealed with the placement's current key and with the current budgets
 * are left alone.
 */
export async function writePinnedConfigs(tx: Tx, options: PinnedConfigsOptions): Promise<void> {
  const { agentId, versions } = options;
  if (versions.length === 0) return;
  const [snapshots, current, pinned] = await Promise.all([
    tx.agentVersion.findMany({
      where: { agentId, version: { in: versions.map(BigInt) } },
      select: { version: true, snapshot: true },
    }),
    tx.engineConfig.findUnique({ where: { agentId }, select: { config: true } }),
    tx.pinnedEngineConfig.findMany({
      where: { agentId, version: { in: versions.map(BigInt) } },
      select: { version: true, config: true },
    }),
  ]);
  const found = new Set(snapshots.map((row) => Number(row.version)));
  const missing = versions.filter((version) => !found.has(version));
  if (missing.length > 0) throw new MissingVersionsError(missing);
  if (current === null) throw new AppError('conflict', 'The agent has no published config yet.');

  const agentBox = options.agentKeys.boxForPlacement({ agentId, pool: options.pool });
  const budgets = (current.config as TEngineConfig).budgets;
  const pinnedOf = new Map(pinned.map((row) => [Number(row.version), row.config as TEngineConfig]));
  const rows: { version: bigint; sealed: string }[] = [];
  for (const row of snapshots) {
    const snapshot = row.snapshot as VersionSnapshot;
    const config = { ...mapEngineConfigSecrets(snapshot.engine_config, options.box.open), budgets };
    const stored = pinnedOf.get(Number(row.version));
    if (stored !== undefined && !hasSecretsToSealAgain(stored, agentBox) && sameJson(stored.budgets, budgets)) {
      continue;
    }
    rows.push({ version: row.version, sealed: JSON.stringify(mapEngineConfigSecrets(config, agentBox.seal)) });
  }
  if (rows.length === 0) return;
  // In version order, so that two writers of one agent's rows take their locks in the same order.
  rows.sort((a, b) => (a.version < b.version ? -1 : 1));
  await tx.$executeRaw`
    INSERT INTO pinned_engine_configs (agent_id, version, workspace_id, config)
    SELECT ${agentId}::uuid, version, ${options.workspaceId}::uuid, config
    FROM unnest(${rows.map((row) => row.version)}::bigint[], ${rows.map((row) => row.sealed)}::jsonb[])
      AS t(version, config)
    ON CONFLICT (agent_id, version) DO UPDATE SET config = EXCLUDED.config, created_at = now()`;
}

/** Deletes the agent's pinned configs of every version but `keep`. */
export async function prunePinnedConfigs(tx: Tx, agentId: string, keep: number[]): Promise<number> {
  const { count } = await tx.pinnedEngineConfig.deleteMany({
    where: { agentId, version: { notIn: keep.map(BigInt) } },
  });
  return count;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
