import { AppError } from '@agentplane/server-kit';
import type { RequestHandler } from 'express';

/** 401 unless the request carries a valid session: a missing, forged or expired cookie all look alike here. */
export const requireSession: RequestHandler = (req, _res, next) => {
  if (!req.session?.userId) throw new AppError('unauthorized', 'Sign in first.');
  next();
};
