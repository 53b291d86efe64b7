// Invitations are the only way into a workspace: an admin invites an email with a role, and whoever
// signs in with that email and presents the token becomes a member. The token is shown once; only its
// SHA-256 is stored, like a password that needs no salt because it is 256 random bits.
import { createHash, randomBytes } from 'node:crypto';
import type { TInvitation, TInvitationCreated, TRole, TWorkspace } from '@agentplane/contracts';
import { type Db, inTransaction, isForeignKeyViolation, isUniqueViolation } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import { WITH_DEFAULT_GUARDRAILS } from '../guardrails/workspace-guardrails.js';
import { type Actor, requireOwnerForOwnership } from '../workspaces/member-service.js';
import { lockWorkspace, toWorkspaceResponse } from '../workspaces/workspace-service.js';

type InvitationRow = {
  id: string;
  workspaceId: string;
  email: string;
  role: TRole;
  invitedById: string | null;
  createdAt: Date;
  expiresAt: Date;
};

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

const GONE = 'No such invitation: it was accepted, revoked or replaced by a newer one, or never existed.';

function toInvitationResponse(row: InvitationRow): TInvitation {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    email: row.email,
    role: row.role,
    invited_by: row.invitedById,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
  };
}

/**
 * Invites `email` with `role`, answering alike whether or not an account uses it. A pending invitation
 * of the same email is replaced, and its token stops working.
 */
export async function inviteMember(
  db: Db,
  options: { workspaceId: string; actor: Actor; email: string; role: TRole; ttlSeconds: number },
): Promise<TInvitationCreated> {
  requireOwnerForOwnership(options.actor, options.role);
  const { workspaceId, email } = options;
  const token = randomBytes(32).toString('base64url');
  try {
    const row = await inTransaction(db, async (tx) => {
      // Invitations of one email take turns here, so the replacement below cannot race another.
      await lockWorkspace(tx, workspaceId);
      if ((await tx.membership.count({ where: { workspaceId, user: { email } } })) > 0) {
        throw new AppError('conflict', 'Someone with that email is already a member.');
      }
      await tx.invitation.deleteMany({ where: { workspaceId, email } });
      return tx.invitation.create({
        data: {
          workspaceId,
          email,
          role: options.role,
          tokenHash: hashToken(token),
          invitedById: options.actor.userId,
          expiresAt: new Date(Date.now() + options.ttlSeconds * 1000),
        },
      });
    });
    return { ...toInvitationResponse(row), token };
  } catch (error) {
    // The workspace was deleted after the access check.
    if (isForeignKeyViolation(error)) throw new AppError('not_found', 'No such workspace.');
    throw error;
  }
}

/** The workspace's invitations that can still be accepted, oldest first. */
export async function listInvitations(db: Db, options: { workspaceId: string; limit: number; offset: number }) {
  const where = { workspaceId: options.workspaceId, expiresAt: { gt: new Date() } };
  const [rows, total] = await Promise.all([
    db.invitation.findMany({
      where,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: options.limit,
      skip: options.offset,
    }),
    db.invitation.count({ where }),
  ]);
  return { items: rows.map(toInvitationResponse), total };
}

/** Revokes an invitation; one for the owner role only an owner may revoke, as only an owner grants it. */
export async function revokeInvitation(
  db: Db,
  options: { workspaceId: string; actor: Actor; invitationId: string },
): Promise<void> {
  const where = { id: options.invitationId, workspaceId: options.workspaceId };
  const invitation = await db.invitation.findFirst({ where, select: { role: true } });
  if (!invitation) throw new AppError('not_found', 'No such invitation.');
  requireOwnerForOwnership(options.actor, invitation.role);
  const { count } = await db.invitation.deleteMany({ where });
  // Accepted or revoked meanwhile.
  if (count === 0) throw new AppError('not_found', 'No such invitation.');
}

/** Makes the signed-in user a member with the invited role, once, if the invitation was for their email. */
export async function acceptInvitation(db: Db, options: { token: string; userId: string }): Promise<TWorkspace> {
  const invitation = await db.invitation.findUnique({ where: { tokenHash: hashToken(options.token) } });
  if (!invitation) throw new AppError('not_found', GONE);
  const user = await db.user.findUnique({ where: { id: options.userId }, select: { email: true } });
  // Says nothing of whom it was for, nor of its state.
  if (user?.email.toLowerCase() !== invitation.email.toLowerCase()) {
    throw new AppError('forbidden', 'This invitation is for another account: sign in with the email it was sent to.');
  }
  if (invitation.expiresAt.getTime() <= Date.now()) {
    throw new AppError('not_found', 'This invitation has expired: ask for a new one.');
  }
  const { workspaceId, role } = invitation;
  try {
    return await inTransaction(db, async (tx) => {
      // Deleting the row is what makes the token single-use: a concurrent accept waits on its lock, then
      // deletes nothing. If anything below fails, the rollback gives the invitation back.
      const { count } = await tx.invitation.deleteMany({ where: { id: invitation.id } });
      if (count === 0) throw new AppError('not_found', GONE);
      const membership = await tx.membership.create({
        data: { workspaceId, userId: options.userId, role },
        select: { role: true, workspace: { include: WITH_DEFAULT_GUARDRAILS } },
      });
      return toWorkspaceResponse(membership.workspace, membership.role);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('conflict', 'You are already a member of this workspace.');
    throw error;
  }
}

/** Removes invitations that can no longer be accepted; the manager runs it periodically. */
export async function pruneExpiredInvitations(db: Db): Promise<number> {
  const { count } = await db.invitation.deleteMany({ where: { expiresAt: { lte: new Date() } } });
  return count;
}
