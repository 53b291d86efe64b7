// Request plumbing for the snapshot a request works on: leased for the whole response, so the config
// a run started with stays usable until its stream ends.
import { AppError } from '@agentplane/server-kit';
import type { RequestHandler, Response } from 'express';
import type { AgentSnapshot } from './agent-snapshot.js';

export type SnapshotSource = {
  current: () => AgentSnapshot | undefined;
  /** Why there is no current snapshot, for the 503 detail. */
  unavailableReason: () => string;
};

export function requireSnapshot(source: SnapshotSource): AgentSnapshot {
  const snapshot = source.current();
  if (snapshot === undefined) throw new AppError('service_unavailable', source.unavailableReason());
  return snapshot;
}

export function useSnapshot(source: SnapshotSource): RequestHandler {
  return (_req, res, next) => {
    const snapshot = requireSnapshot(source);
    res.on('close', snapshot.lease());
    res.locals.snapshot = snapshot;
    next();
  };
}

export function getSnapshot(res: Response): AgentSnapshot {
  return res.locals.snapshot as AgentSnapshot;
}
