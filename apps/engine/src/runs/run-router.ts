import express, { Router } from 'express';
import { requireBearer } from '../auth/require-bearer.js';
import { type SnapshotSource, useSnapshot } from '../snapshot/use-snapshot.js';
import { handleRejoin, handleRunRecord } from './rejoin-handler.js';
import { handleRun, type RunOptions } from './run-handler.js';

export function runRouter(source: SnapshotSource, options: RunOptions = {}): Router {
  const router = Router();
  // Authentication comes before the body is even read.
  router.post('/agent/run', useSnapshot(source), requireBearer, express.json({ limit: '1mb' }), handleRun(options));
  // Runs are records only in database mode; without it these paths are unknown.
  const { store } = options;
  if (store !== undefined) {
    router.get('/agent/runs/:runId', useSnapshot(source), requireBearer, handleRunRecord(store));
    router.get(
      '/agent/runs/:runId/stream',
      useSnapshot(source),
      requireBearer,
      handleRejoin(store, options.keepaliveMs),
    );
  }
  return router;
}
