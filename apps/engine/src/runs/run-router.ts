import express, { Router } from 'express';
import { requireBearer } from '../auth/require-bearer.js';
import { type SnapshotSource, useSnapshot } from '../snapshot/use-snapshot.js';
import { handleRun, type RunOptions } from './run-handler.js';

export function runRouter(source: SnapshotSource, options: RunOptions = {}): Router {
  const router = Router();
  // Authentication comes before the body is even read.
  router.post('/agent/run', useSnapshot(source), requireBearer, express.json({ limit: '1mb' }), handleRun(options));
  return router;
}
