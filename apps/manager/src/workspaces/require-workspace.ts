// Resolves the workspace a request acts in and checks the caller's role there, against the
// database on every request, so that removing a member takes effect at once.
import { hasRoleAtLeast, type TRole, ZUuid } from '@agentplane/contracts';
import type { Db } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import type { Request, RequestHandler } from 'express';
import { currentUserId } from '../http/request-context.js';

/**
 * The caller's membership of `workspaceId` (or their earliest one). The session store loads the
 * memberships fresh with the session on each request; a session set up another way is looked up here.
 */
async function findMembership(req: Request, db: Db, workspaceId: string | undefined) {
  const loaded = req.session?.memberships;
  if (loaded) return workspaceId ? loaded.find((membership) => membership.workspaceId === workspaceId) : loaded[0];
  return db.membership.findFirst({
    where: { userId: currentUserId(req), ...(workspaceId ? { workspaceId } : {}) },
    orderBy: [{ createdAt: 'asc' }, { workspaceId: 'asc' }],
    select: { workspaceId: true, role: true },
  });
}

function checkRole(role: TRole, minRole: TRole): void {
  if (!hasRoleAtLeast(role, minRole)) {
    throw new AppError('forbidden', `This needs the ${minRole} role or higher; you are ${role}.`);
  }
}

function headerWorkspaceId(req: Request): string | undefined {
  const header = req.headers['x-workspace-id'];
  if (header === undefined || header === '' || header === 'null') return undefined;
  const parsed = ZUuid.safeParse(header);
  if (!parsed.success) throw new AppError('bad_request', 'The x-workspace-id header must be a workspace UUID.');
  return parsed.data;
}

/** The x-workspace-id workspace, or the caller's default (earliest membership) when the header is absent. */
export function requireHeaderWorkspace(db: Db, minRole: TRole): RequestHandler {
  return async (req, _res, next) => {
    const requested = headerWorkspaceId(req);
    const membership = await findMembership(req, db, requested);
    if (!membership) {
      throw new AppError(
        'forbidden',
        requested ? 'You are not a member of that workspace.' : 'You are not a member of any workspace.',
      );
    }
    checkRole(membership.role, minRole);
    req.workspace = { id: membership.workspaceId, role: membership.role };
    next();
  };
}

/** The workspace named by the `:id` path parameter; to a non-member it does not exist (404). */
export function requirePathWorkspace(db: Db, minRole: TRole): RequestHandler {
  return async (req, _res, next) => {
    const parsed = ZUuid.safeParse(req.params.id);
    if (!parsed.success) throw new AppError('bad_request', 'The workspace id must be a UUID.');
    const id = parsed.data;
    const membership = await findMembership(req, db, id);
    if (!membership) throw new AppError('not_found', 'No such workspace.');
    checkRole(membership.role, minRole);
    req.workspace = { id: membership.workspaceId, role: membership.role };
    next();
  };
}
