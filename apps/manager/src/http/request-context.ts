// What the access middleware establishes about a request, for handlers to read.
import type { TRole } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import type { Request } from 'express';

export type WorkspaceAccess = { id: string; role: TRole };

declare module 'express-session' {
  interface SessionData {
    userId: string;
    /** The user's memberships, earliest first, read from the database with the session on this request. */
    memberships: { workspaceId: string; role: TRole }[];
    /** Recorded at sign-in, for the user's list of their sessions. */
    signedInFrom: { userAgent: string | null; ip: string | null };
  }
}

declare global {
  namespace Express {
    interface Request {
      workspace?: WorkspaceAccess;
    }
  }
}

export function currentUserId(req: Request): string {
  const userId = req.session?.userId;
  if (!userId) throw new AppError('unauthorized', 'Sign in first.');
  return userId;
}

export function currentWorkspace(req: Request): WorkspaceAccess {
  if (!req.workspace) throw new AppError('internal', 'The route did not resolve a workspace.');
  return req.workspace;
}

/** Who acts in the request's workspace, and with which role: what the member rules check. */
export function currentActor(req: Request): { userId: string; role: TRole } {
  return { userId: currentUserId(req), role: currentWorkspace(req).role };
}
