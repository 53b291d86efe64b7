// Reading an agent's versions, comparing two, and rolling back to one. Every view masks secrets,
// whatever the caller's role: a version shows what changed, never a secret or its ciphertext.
import {
  SECRET_MASK_BULLETS,
  type TAgent,
  type TAgentVersion,
  type TAgentVersionDetail,
  type TAgentVersionDiff,
  ZAgentUpdate,
} from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import { type AgentContext, notFound, updateAgent } from '../agents/agent-service.js';
import { diffSnapshots } from './version-diff.js';
import { type VersionSnapshot, viewSnapshot } from './version-snapshot.js';

export type VersionContext = Pick<AgentContext, 'db' | 'box' | 'workspaceId'>;

const SUMMARY_FIELDS = {
  agentId: true,
  version: true,
  cause: true,
  message: true,
  rolledBackFrom: true,
  createdAt: true,
  author: { select: { id: true, email: true, name: true } },
} as const;

type SummaryRow = {
  agentId: string;
  version: bigint;
  cause: string;
  message: string | null;
  rolledBackFrom: bigint | null;
  createdAt: Date;
  author: { id: string; email: string; name: string | null } | null;
};

function toVersion(row: SummaryRow, current: number): TAgentVersion {
  return {
    agent_id: row.agentId,
    version: Number(row.version),
    cause: row.cause as TAgentVersion['cause'],
    author: row.author,
    message: row.message,
    rolled_back_from: row.rolledBackFrom === null ? null : Number(row.rolledBackFrom),
    current: Number(row.version) === current,
    created_at: row.createdAt.toISOString(),
  };
}

function noSuchVersion(version: number): AppError {
  return new AppError('not_found', `The agent has no version ${version} (never published, or pruned by retention).`);
}

/** The agent's published version; 404 for an agent not in the workspace. */
async function currentVersionOf(ctx: VersionContext, agentId: string): Promise<number> {
  const published = await ctx.db.engineConfig.findFirst({
    where: { agentId, workspaceId: ctx.workspaceId },
    select: { version: true },
  });
  if (!published) throw notFound();
  return Number(published.version);
}

/** A page of the agent's versions, newest first. */
export async function listAgentVersions(
  ctx: VersionContext,
  agentId: string,
  page: { limit: number; offset: number },
): Promise<{ items: TAgentVersion[]; total: number }> {
  const current = await currentVersionOf(ctx, agentId);
  const where = { agentId, workspaceId: ctx.workspaceId };
  const [rows, total] = await Promise.all([
    ctx.db.agentVersion.findMany({
      where,
      select: SUMMARY_FIELDS,
      orderBy: { version: 'desc' },
      skip: page.offset,
      take: page.limit,
    }),
    ctx.db.agentVersion.count({ where }),
  ]);
  return { items: rows.map((row) => toVersion(row, current)), total };
}

async function readVersion(ctx: VersionContext, agentId: string, version: number) {
  const row = await ctx.db.agentVersion.findFirst({
    where: { agentId, version: BigInt(version), workspaceId: ctx.workspaceId },
    select: { ...SUMMARY_FIELDS, snapshot: true },
  });
  if (!row) throw noSuchVersion(version);
  return { ...row, snapshot: row.snapshot as VersionSnapshot };
}

const masked = () => SECRET_MASK_BULLETS;

export async function getAgentVersion(
  ctx: VersionContext,
  agentId: string,
  version: number,
): Promise<TAgentVersionDetail> {
  const current = await currentVersionOf(ctx, agentId);
  const row = await readVersion(ctx, agentId, version);
  const view = viewSnapshot(row.snapshot, ctx.box, masked);
  return { ...toVersion(row, current), spec: view.spec, engine_config: view.engine_config };
}

/** The JSON Patch that turns version `against` into version `version`, secrets masked. */
export async function diffAgentVersions(
  ctx: VersionContext,
  agentId: string,
  version: number,
  against: number,
): Promise<TAgentVersionDiff> {
  await currentVersionOf(ctx, agentId);
  const [from, to] = await Promise.all([readVersion(ctx, agentId, against), readVersion(ctx, agentId, version)]);
  return { agent_id: agentId, from: against, to: version, patch: diffSnapshots(from.snapshot, to.snapshot, ctx.box) };
}

/**
 * Publishes the spec of `version` again as a new version (cause rollback), through the agent update:
 * the same checks (operator policy, egress, referenced resources still in the workspace, else 422),
 * locks and one transaction. The resources' configs are not rolled back: other agents share them.
 */
export async function rollbackAgent(
  ctx: AgentContext,
  agentId: string,
  options: { version: number; message?: string | undefined },
): Promise<TAgent> {
  await currentVersionOf(ctx, agentId);
  const { snapshot } = await readVersion(ctx, agentId, options.version);
  const { spec } = viewSnapshot(snapshot, ctx.box, (value) => value);
  const body = ZAgentUpdate.safeParse(spec);
  if (!body.success) {
    throw new AppError(
      'validation_failed',
      `Version ${options.version} no longer validates as an agent; edit the agent instead.`,
      {
        errors: body.error.issues.map((issue) => ({ path: ['spec', ...issue.path].join('.'), message: issue.message })),
      },
    );
  }
  return updateAgent(ctx, agentId, body.data, options);
}
