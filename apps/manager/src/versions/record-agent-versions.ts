// Where every agent version is recorded: publishing calls this in the transaction of the write that
// gave the agents their new engine_configs versions, so a version exists exactly when its config was
// published, and neither without the other. So is its agent.version.created event, queued for the
// workspace's webhooks in the same transaction.
import type { TAgentVersionCause } from '@agentplane/contracts';
import type { Prisma, Tx } from '@agentplane/db';
import { enqueueWebhookEvents } from '../webhooks/enqueue-webhook-event.js';
import type { VersionSnapshot } from './version-snapshot.js';

/** Who made a change, why, and what kind of change: kept with every version it creates. */
export type VersionChange = {
  cause: TAgentVersionCause;
  authorId: string | null;
  message?: string | null | undefined;
  /** For a rollback: the version restored. */
  rolledBackFrom?: number | undefined;
};

export type NewAgentVersion = {
  agentId: string;
  workspaceId: string;
  version: number;
  snapshot: VersionSnapshot;
  /** The change's own cause, or another for agents it reached indirectly (an agent that calls it). */
  cause: TAgentVersionCause;
};

/** AGENT_VERSION_RETENTION's default: how many of an agent's newest versions are kept. */
export const AGENT_VERSION_RETENTION_DEFAULT = 100;

/**
 * Inserts the versions and queues their agent.version.created events (not for a backfill, which
 * records a version that already ran rather than a change), then prunes each agent's versions older than its `retention` newest numbers,
 * except those a run still references (runs are themselves deleted after ENGINE_RUN_RETENTION_DAYS).
 * The publish holds each agent's engine_configs row lock, so two publishes of one agent never record
 * or prune at once.
 */
export async function recordAgentVersions(
  tx: Tx,
  versions: NewAgentVersion[],
  change: VersionChange,
  retention: number,
): Promise<void> {
  if (versions.length === 0) return;
  await tx.agentVersion.createMany({
    data: versions.map((entry) => ({
      agentId: entry.agentId,
      workspaceId: entry.workspaceId,
      version: BigInt(entry.version),
      cause: entry.cause,
      snapshot: entry.snapshot as unknown as Prisma.InputJsonValue,
      authorId: change.authorId,
      message: change.message ?? null,
      rolledBackFrom:
        entry.cause === 'rollback' && change.rolledBackFrom !== undefined ? BigInt(change.rolledBackFrom) : null,
    })),
  });
  if (change.cause !== 'backfill') {
    await enqueueWebhookEvents(
      tx,
      versions.map((entry) => ({
        workspaceId: entry.workspaceId,
        type: 'agent.version.created',
        data: {
          agent_id: entry.agentId,
          version: entry.version,
          cause: entry.cause,
          author_id: change.authorId,
          message: change.message ?? null,
          rolled_back_from: entry.cause === 'rollback' ? (change.rolledBackFrom ?? null) : null,
        },
      })),
    );
  }
  await pruneAgentVersions(
    tx,
    versions.map((entry) => ({ agentId: entry.agentId, newest: entry.version })),
    retention,
  );
}

/**
 * Deletes versions past the newest `retention` of each agent that no run references and no active experiment
 * names: an experiment may need a version's snapshot again to re-seal its pinned config after a move.
 */
export async function pruneAgentVersions(
  tx: Tx,
  agents: { agentId: string; newest: number }[],
  retention: number,
): Promise<void> {
  await tx.$executeRaw`
    DELETE FROM agent_versions v
    USING unnest(${agents.map((agent) => agent.agentId)}::uuid[], ${agents.map((agent) => agent.newest)}::bigint[])
      AS t(agent_id, newest)
    WHERE v.agent_id = t.agent_id AND v.version <= t.newest - ${retention}
      AND NOT EXISTS (SELECT 1 FROM agent_runs r WHERE r.agent_id = v.agent_id AND r.agent_version = v.version)
      AND NOT EXISTS (
        SELECT 1 FROM experiments e
        WHERE e.agent_id = v.agent_id AND e.status IN ('running', 'cancelling') AND v.version = ANY (e.agent_versions))`;
}
