import { hasRoleAtLeast, type TMember, type TRole } from '@agentplane/contracts';
import { type Db, inTransaction, type Tx } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import { lockWorkspace } from './workspace-service.js';

type MemberRow = {
  userId: string;
  role: TRole;
  createdAt: Date;
  updatedAt: Date;
  user: { email: string; name: string | null };
};

const MEMBER_SELECT = {
  userId: true,
  role: true,
  createdAt: true,
  updatedAt: true,
  user: { select: { email: true, name: true } },
} as const;

function toMemberResponse(row: MemberRow): TMember {
  return {
    user_id: row.userId,
    email: row.user.email,
    name: row.user.name,
    role: row.role,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export type Actor = { userId: string; role: TRole };

export async function listMembers(db: Db, options: { workspaceId: string; limit: number; offset: number }) {
  const where = { workspaceId: options.workspaceId };
  const [rows, total] = await Promise.all([
    db.membership.findMany({
      where,
      orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }],
      take: options.limit,
      skip: options.offset,
      select: MEMBER_SELECT,
    }),
    db.membership.count({ where }),
  ]);
  return { items: rows.map(toMemberResponse), total };
}

export function requireOwnerForOwnership(actor: Actor, ...roles: TRole[]): void {
  if (roles.includes('owner') && actor.role !== 'owner') {
    throw new AppError('forbidden', 'Only an owner can grant, change or remove the owner role.');
  }
}

async function findTarget(tx: Tx, workspaceId: string, userId: string): Promise<MemberRow> {
  const row = await tx.membership.findUnique({
    where: { workspaceId_userId: { workspaceId, userId } },
    select: MEMBER_SELECT,
  });
  if (!row) throw new AppError('not_found', 'No such member.');
  return row;
}

async function refuseRemovingLastOwner(tx: Tx, workspaceId: string): Promise<void> {
  const owners = await tx.membership.count({ where: { workspaceId, role: 'owner' } });
  if (owners <= 1) {
    throw new AppError('conflict', 'The workspace must keep at least one owner: make someone else owner first.');
  }
}

export async function changeMemberRole(
  db: Db,
  options: { workspaceId: string; actor: Actor; userId: string; role: TRole },
): Promise<TMember> {
  return inTransaction(db, async (tx) => {
    // The lock makes concurrent demotions of two owners see each other, so one of them fails.
    await lockWorkspace(tx, options.workspaceId);
    const target = await findTarget(tx, options.workspaceId, options.userId);
    requireOwnerForOwnership(options.actor, target.role, options.role);
    if (target.role === 'owner' && options.role !== 'owner') await refuseRemovingLastOwner(tx, options.workspaceId);
    const row = await tx.membership.update({
      where: { workspaceId_userId: { workspaceId: options.workspaceId, userId: options.userId } },
      data: { role: options.role },
      select: MEMBER_SELECT,
    });
    return toMemberResponse(row);
  });
}

/** Admins and owners remove members; anyone may leave. Owners are removed only by owners. */
export async function removeMember(
  db: Db,
  options: { workspaceId: string; actor: Actor; userId: string },
): Promise<void> {
  const leaving = options.actor.userId === options.userId;
  if (!leaving && !hasRoleAtLeast(options.actor.role, 'admin')) {
    throw new AppError('forbidden', 'This needs the admin role or higher, unless you are leaving yourself.');
  }
  await inTransaction(db, async (tx) => {
    await lockWorkspace(tx, options.workspaceId);
    const target = await findTarget(tx, options.workspaceId, options.userId);
    if (!leaving) requireOwnerForOwnership(options.actor, target.role);
    if (target.role === 'owner') await refuseRemovingLastOwner(tx, options.workspaceId);
    await tx.membership.delete({
      where: { workspaceId_userId: { workspaceId: options.workspaceId, userId: options.userId } },
    });
  });
}
