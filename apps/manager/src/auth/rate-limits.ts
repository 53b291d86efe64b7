import type { Db } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import type { Request, RequestHandler } from 'express';
import { type RateLimitInfo, rateLimit } from 'express-rate-limit';
import type { ManagerConfig } from '../config.js';
import { PostgresRateLimitStore } from './postgres-rate-limit-store.js';

/** 429 with a Retry-After up to `until` (at least a second). */
export function tooManyAttempts(until: Date | undefined): AppError {
  const retryAfterSeconds = Math.max(1, Math.ceil(((until?.getTime() ?? Date.now()) - Date.now()) / 1000));
  return new AppError('too_many_requests', 'Too many attempts. Try again later.', {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
}

/**
 * Every sign-in, sign-up and password change counts against the caller's address, whatever its body:
 * this bounds how many accounts one address can try. Failures per account come on top of it
 * (failure-backoff.ts), once the body is known to be valid.
 */
export function authAddressRateLimit(db: Db, config: ManagerConfig['authRateLimit']): RequestHandler {
  return rateLimit({
    windowMs: config.windowMs,
    limit: config.perIp,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    // TRUST_PROXY decides what req.ip is; the library's own proxy heuristics would only add noise.
    validate: { trustProxy: false, xForwardedForHeader: false },
    store: new PostgresRateLimitStore(db, 'auth-ip:'),
    handler: (req: Request & { rateLimit?: RateLimitInfo }) => {
      throw tooManyAttempts(req.rateLimit?.resetTime);
    },
  });
}
