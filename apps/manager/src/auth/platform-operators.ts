// Platform operators hold what no workspace role gives: engine database credentials. Only the CLI on
// the manager's host makes one (agentplane-manager operator); no API route does. Whether a user is one
// is read from the database on every request, so a revocation takes effect at once.
import type { Db } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import type { RequestHandler } from 'express';
import { currentUserId } from '../http/request-context.js';

/** 403 unless the signed-in user is a platform operator; run after requireSession. */
export function requirePlatformOperator(db: Db): RequestHandler {
  return async (req, _res, next) => {
    const user = await db.user.findUnique({ where: { id: currentUserId(req) }, select: { platformOperator: true } });
    if (user?.platformOperator !== true) {
      throw new AppError(
        'forbidden',
        'This needs a platform operator account; no workspace role is enough. Operators run `agentplane-manager engine-credentials` on the manager host instead.',
      );
    }
    next();
  };
}

/** Sets the flag; false when no user has the email. */
export async function setPlatformOperator(db: Db, email: string, operator: boolean): Promise<boolean> {
  const { count } = await db.user.updateMany({ where: { email }, data: { platformOperator: operator } });
  return count === 1;
}
