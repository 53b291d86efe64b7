import { AppError } from '@agentplane/server-kit';
import type { Request, RequestHandler, Response } from 'express';
import { getSnapshot } from '../snapshot/use-snapshot.js';

async function authenticate(req: Request, res: Response): Promise<void> {
  res.locals.claims = await getSnapshot(res).auth.authenticate(req.headers.authorization);
}

/** Checks the bearer token against the auth settings of the snapshot the request leased. */
export const requireBearer: RequestHandler = async (req, res, next) => {
  await authenticate(req, res);
  next();
};

/**
 * requireBearer, whose 401 also names the resource's RFC 9728 metadata (`resource_metadata` in
 * WWW-Authenticate), where an OAuth client such as an MCP client learns which issuer to ask.
 */
export function requireBearerNaming(resourceMetadataUrl: (req: Request) => string): RequestHandler {
  return async (req, res, next) => {
    try {
      await authenticate(req, res);
    } catch (error) {
      if (error instanceof AppError && error.status === 401) {
        const challenge = error.headers['WWW-Authenticate'];
        const metadata = `resource_metadata="${resourceMetadataUrl(req)}"`;
        error.headers['WWW-Authenticate'] =
          challenge === undefined ? `Bearer ${metadata}` : `${challenge}, ${metadata}`;
      }
      throw error;
    }
    next();
  };
}
