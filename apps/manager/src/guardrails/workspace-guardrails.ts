// A workspace's default guardrails: every agent of it applies them besides its own. Changing them
// republishes the workspace's agents in the same transaction.
import type { Prisma, Tx } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import { lockExisting } from '../agents/agent-references.js';
import { publishEngineConfigs } from '../publishing/publish-engine-configs.js';

export type PublishOptions = Omit<Parameters<typeof publishEngineConfigs>[1], 'agentIds'>;

export const WITH_DEFAULT_GUARDRAILS = {
  defaultGuardrails: {
    select: { guardrailId: true },
    orderBy: [{ guardrail: { createdAt: 'asc' } }, { guardrailId: 'asc' }],
  },
} satisfies Prisma.WorkspaceInclude;

/**
 * Replaces the workspace's defaults with `ids` (guardrails of that workspace, else 422) and republishes
 * its agents. The caller holds the workspace's row lock, which an agent create waits for
 * (agents-per-workspace.ts). The guardrails are locked FOR SHARE: a concurrent delete waits, then answers 409.
 */
export async function setDefaultGuardrails(
  tx: Tx,
  workspaceId: string,
  ids: string[],
  publish: PublishOptions,
): Promise<void> {
  // The old defaults are locked too: a PATCH of one of them, which republishes with the defaults it
  // reads, then runs wholly before or after this change.
  const old = await tx.workspaceGuardrail.findMany({ where: { workspaceId }, select: { guardrailId: true } });
  const found = await lockExisting(tx, 'guardrails', workspaceId, [
    ...new Set([...ids, ...old.map((link) => link.guardrailId)]),
  ]);
  const errors = ids.flatMap((id, index) =>
    found.has(id)
      ? []
      : [{ path: `default_guardrail_ids[${index}]`, message: `No guardrail with id ${id} in this workspace` }],
  );
  if (errors.length > 0) {
    throw new AppError('validation_failed', 'The workspace names guardrails that do not exist in it.', { errors });
  }
  await tx.workspaceGuardrail.deleteMany({ where: { workspaceId } });
  await tx.workspaceGuardrail.createMany({ data: ids.map((guardrailId) => ({ workspaceId, guardrailId })) });
  // Each agent's own lock (lock-agent.ts), in id order, as a workspace budget takes them: an agent write
  // meanwhile publishes wholly before this (and is republished here) or reads these defaults after it.
  const agents = await tx.$queryRaw<{ id: string }[]>`
    SELECT id::text AS id FROM agents WHERE workspace_id = ${workspaceId}::uuid ORDER BY id FOR NO KEY UPDATE`;
  await publishEngineConfigs(tx, { ...publish, agentIds: agents.map((agent) => agent.id) });
}
