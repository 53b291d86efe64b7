import type { TMe, TSignupBody } from '@agentplane/contracts';
import { type Db, inTransaction, isUniqueViolation } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import { endMySessions } from './my-sessions.js';
import { hashPassword, verifyPassword } from './passwords.js';

export type SignUpOptions = TSignupBody & { workspaceName?: string };

/** Creates the user with a personal workspace they own, in one transaction. */
export async function signUp(db: Db, options: SignUpOptions): Promise<{ userId: string; workspaceId: string }> {
  const passwordHash = await hashPassword(options.password);
  const workspaceName = options.workspaceName ?? `${options.name ?? options.email.split('@')[0]}'s workspace`;
  try {
    return await inTransaction(db, async (tx) => {
      const user = await tx.user.create({
        data: { email: options.email, name: options.name ?? null, passwordHash },
      });
      const workspace = await tx.workspace.create({
        data: { name: workspaceName, memberships: { create: { userId: user.id, role: 'owner' } } },
      });
      return { userId: user.id, workspaceId: workspace.id };
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('conflict', 'An account with this email already exists.');
    throw error;
  }
}

/** The user id for a correct email and password, or undefined; both failures take the same time. */
export async function authenticate(
  db: Db,
  credentials: { email: string; password: string },
): Promise<string | undefined> {
  const user = await db.user.findUnique({
    where: { email: credentials.email },
    select: { id: true, passwordHash: true },
  });
  return (await verifyPassword(user?.passwordHash, credentials.password)) ? user?.id : undefined;
}

/**
 * Sets a new password when the current one is right, and in the same transaction ends every other
 * session of the user: whoever knew the old password is signed out everywhere.
 */
export async function changePassword(
  db: Db,
  options: { userId: string; currentPassword: string; newPassword: string; keepSid: string },
): Promise<void> {
  const user = await db.user.findUnique({ where: { id: options.userId }, select: { passwordHash: true } });
  if (!(await verifyPassword(user?.passwordHash, options.currentPassword))) {
    throw new AppError('forbidden', 'The current password is incorrect.');
  }
  const passwordHash = await hashPassword(options.newPassword);
  await inTransaction(db, async (tx) => {
    await tx.user.update({ where: { id: options.userId }, data: { passwordHash } });
    await endMySessions(tx, { userId: options.userId, keepSid: options.keepSid });
  });
}

export async function readMe(db: Db, userId: string): Promise<TMe> {
  const user = await db.user.findUnique({
    where: { id: userId },
    select: {
      id: true,
      email: true,
      name: true,
      platformOperator: true,
      memberships: {
        orderBy: [{ createdAt: 'asc' }, { workspaceId: 'asc' }],
        select: { role: true, workspace: { select: { id: true, name: true } } },
      },
    },
  });
  if (!user) throw new AppError('unauthorized', 'Sign in first.');
  const workspaces = user.memberships.map((membership) => ({ ...membership.workspace, role: membership.role }));
  return {
    user: { id: user.id, email: user.email, name: user.name, platform_operator: user.platformOperator },
    workspaces,
    default_workspace_id: workspaces[0]?.id ?? null,
  };
}
