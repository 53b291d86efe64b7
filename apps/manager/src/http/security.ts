// Cross-site protection: together, a JSON-only body and an Origin allow-list stop a cross-site form
// from riding the session cookie, and CORS with credentials is granted to the allow-list only.
import { JSONL_MEDIA_TYPES } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import type { Request, RequestHandler } from 'express';
import helmet from 'helmet';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function securityHeaders(): RequestHandler {
  return helmet();
}

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

// JSON Lines (a dataset import) is no more a form's than JSON: a cross-site page can send neither
// without a CORS preflight, which the allow-list answers.
const BODY_TYPES = ['application/json', ...JSONL_MEDIA_TYPES];

/**
 * A request that carries a body must say it is JSON (or JSON Lines, which only the route reading it
 * parses); a body-less request (DELETE, logout) needs no type.
 */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  if (hasBody(req) && !req.is(BODY_TYPES)) {
    throw new AppError('unsupported_media_type', 'Request bodies must be application/json.');
  }
  next();
};

/** The origin a request reached the manager on, as its Host header (or a trusted proxy) says. */
export function requestOrigin(req: Request): string {
  return `${req.protocol}://${req.get('host')}`;
}

function ownOrigin(req: Request, publicOrigin: string | undefined): string {
  return publicOrigin ?? requestOrigin(req);
}

/** A state-changing request from a browser page must come from our own origin or an allowed one. */
export function requireTrustedOrigin(options: { publicOrigin: string | undefined; allowed: string[] }): RequestHandler {
  return (req, _res, next) => {
    const origin = req.headers.origin;
    if (
      STATE_CHANGING.has(req.method) &&
      origin !== undefined &&
      origin !== ownOrigin(req, options.publicOrigin) &&
      !options.allowed.includes(origin)
    ) {
      throw new AppError('forbidden', `Requests from origin ${origin} are not allowed.`);
    }
    next();
  };
}
