import type { RequestHandler } from 'express';
import { getSnapshot } from '../snapshot/use-snapshot.js';

/** Checks the bearer token against the auth settings of the snapshot the request leased. */
export const requireBearer: RequestHandler = async (req, res, next) => {
  res.locals.claims = await getSnapshot(res).auth.authenticate(req.headers.authorization);
  next();
};
