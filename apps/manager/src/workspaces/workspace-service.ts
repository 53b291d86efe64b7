import type { TDeployment, TRole, TWorkspace } from '@agentplane/contracts';
import { type Db, dropEngineRole, inTransaction, Prisma, type Tx } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import {
  type DefaultDeploymentColumns,
  defaultColumnsOf,
  refuseUnknownPool,
  workspaceDeploymentOf,
} from '../engine-pools/deployments.js';
import {
  type PublishOptions,
  setDefaultGuardrails,
  WITH_DEFAULT_GUARDRAILS,
} from '../guardrails/workspace-guardrails.js';

type WorkspaceRow = DefaultDeploymentColumns & {
  id: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
  /** Read with WITH_DEFAULT_GUARDRAILS. */
  defaultGuardrails: { guardrailId: string }[];
};

export function toWorkspaceResponse(workspace: WorkspaceRow, role: TRole): TWorkspace {
  return {
    id: workspace.id,
    name: workspace.name,
    role,
    default_deployment: workspaceDeploymentOf(workspace),
    default_guardrail_ids: workspace.defaultGuardrails.map((link) => link.guardrailId),
    created_at: workspace.createdAt.toISOString(),
    updated_at: workspace.updatedAt.toISOString(),
  };
}

export async function listWorkspaces(db: Db, options: { userId: string; limit: number; offset: number }) {
  const where = { userId: options.userId };
  const [memberships, total] = await Promise.all([
    db.membership.findMany({
      where,
      orderBy: [{ workspace: { createdAt: 'asc' } }, { workspaceId: 'asc' }],
      take: options.limit,
      skip: options.offset,
      select: { role: true, workspace: { include: WITH_DEFAULT_GUARDRAILS } },
    }),
    db.membership.count({ where }),
  ]);
  return { items: memberships.map((m) => toWorkspaceResponse(m.workspace, m.role)), total };
}

export async function createWorkspace(db: Db, options: { userId: string; name: string }): Promise<TWorkspace> {
  const workspace = await db.workspace.create({
    data: { name: options.name, memberships: { create: { userId: options.userId, role: 'owner' } } },
    include: WITH_DEFAULT_GUARDRAILS,
  });
  return toWorkspaceResponse(workspace, 'owner');
}

export async function getWorkspace(db: Db, options: { id: string; role: TRole }): Promise<TWorkspace> {
  const workspace = await db.workspace.findUnique({ where: { id: options.id }, include: WITH_DEFAULT_GUARDRAILS });
  if (!workspace) throw new AppError('not_found', 'No such workspace.');
  return toWorkspaceResponse(workspace, options.role);
}

// Prisma's code for an update whose row is gone: here, a workspace deleted after the access check.
const RECORD_NOT_FOUND = 'P2025';

/**
 * Renames the workspace and, when `defaultDeployment` is given, sets where its new agents go (null: the
 * operator's default). A pool it names must be one the operator serves. When `defaultGuardrailIds` is
 * given, they replace the workspace's default guardrails and its agents are republished.
 */
export async function updateWorkspace(
  db: Db,
  options: {
    id: string;
    role: TRole;
    name: string;
    defaultDeployment?: TDeployment | null | undefined;
    defaultGuardrailIds?: string[] | undefined;
    publish: PublishOptions;
  },
): Promise<TWorkspace> {
  const { defaultDeployment, defaultGuardrailIds } = options;
  if (defaultDeployment) {
    refuseUnknownPool(defaultDeployment, options.publish.poolUrls, 'default_deployment.pool');
  }
  try {
    return await inTransaction(db, async (tx) => {
      // The update comes first: its row lock is what agent writes wait for (setDefaultGuardrails).
      await tx.workspace.update({
        where: { id: options.id },
        data: {
          name: options.name,
          ...(defaultDeployment === undefined ? {} : defaultColumnsOf(defaultDeployment)),
        },
      });
      if (defaultGuardrailIds !== undefined) {
        await setDefaultGuardrails(tx, options.id, defaultGuardrailIds, options.publish);
      }
      const workspace = await tx.workspace.findUniqueOrThrow({
        where: { id: options.id },
        include: WITH_DEFAULT_GUARDRAILS,
      });
      return toWorkspaceResponse(workspace, options.role);
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === RECORD_NOT_FOUND) {
      throw new AppError('not_found', 'No such workspace.');
    }
    throw error;
  }
}

/**
 * Deletes the workspace with everything in it. Agents go first: their links to resources are
 * RESTRICT foreign keys, which would refuse a cascade that reached a resource before its agent.
 * The row lock waits out, then shuts out, writes that add agents to the workspace meanwhile.
 */
export async function deleteWorkspace(db: Db, options: { id: string }): Promise<void> {
  await inTransaction(db, async (tx) => {
    await lockWorkspace(tx, options.id);
    const agents = await tx.agent.findMany({ where: { workspaceId: options.id }, select: { id: true } });
    await tx.agent.deleteMany({ where: { workspaceId: options.id } });
    for (const agent of agents) await dropEngineRole(tx, agent.id);
    await tx.workspace.deleteMany({ where: { id: options.id } });
  });
}

/** Serialises changes that must see a stable workspace: its owners, its agents. */
export async function lockWorkspace(tx: Tx, workspaceId: string): Promise<void> {
  await tx.$queryRaw`SELECT 1 FROM workspaces WHERE id = ${workspaceId}::uuid FOR UPDATE`;
}
