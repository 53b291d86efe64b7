import type { Db } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import type { Request, RequestHandler } from 'express';
import { type RateLimitInfo, rateLimit } from 'express-rate-limit';
import type { ManagerConfig } from '../config.js';
import { PostgresRateLimitStore } from './postgres-rate-limit-store.js';

function tooManyAttempts(req: Request & { rateLimit?: RateLimitInfo }): AppError {
  const resetTime = req.rateLimit?.resetTime?.getTime() ?? Date.now();
  const retryAfterSeconds = Math.max(1, Math.ceil((resetTime - Date.now()) / 1000));
  return new AppError('too_many_requests', 'Too many sign-in attempts. Try again later.', {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
}

function emailOf(req: Request): string | undefined {
  const email = (req.body as { email?: unknown } | undefined)?.email;
  return typeof email === 'string' ? email.trim().toLowerCase() : undefined;
}

/**
 * Two limits on sign-in and sign-up: every attempt counts against the caller's IP, and failed
 * attempts count against the email, so one account cannot be guessed at from many addresses.
 */
export function authRateLimits(db: Db, config: ManagerConfig['authRateLimit']): RequestHandler[] {
  const common = {
    windowMs: config.windowMs,
    standardHeaders: 'draft-8' as const,
    legacyHeaders: false,
    // TRUST_PROXY decides what req.ip is; the library's own proxy heuristics would only add noise.
    validate: { trustProxy: false, xForwardedForHeader: false },
    handler: (req: Request) => {
      throw tooManyAttempts(req);
    },
  };
  const perIp = rateLimit({ ...common, limit: config.perIp, store: new PostgresRateLimitStore(db, 'auth-ip:') });
  const perEmail = rateLimit({
    ...common,
    limit: config.perEmail,
    skipSuccessfulRequests: true,
    skip: (req) => emailOf(req) === undefined,
    keyGenerator: (req) => emailOf(req) ?? '',
    store: new PostgresRateLimitStore(db, 'auth-email:'),
  });
  return [perIp, perEmail];
}
