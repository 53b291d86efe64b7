import { JSON_MAX_DEPTH } from '@agentplane/contracts';
import { AppError, refuseUnstorableInput } from '@agentplane/server-kit';
import express, { Router } from 'express';
import { requireBearer } from '../auth/require-bearer.js';
import { type SnapshotSource, useSnapshot } from '../snapshot/use-snapshot.js';
import { handleRejoin, handleRunRecord } from './rejoin-handler.js';
import { handleBackgroundRun, handleCancel } from './run-control-handler.js';
import { handleRunEvents } from './run-events-handler.js';
import { handleRun, type RunOptions } from './run-handler.js';

export function runRouter(source: SnapshotSource, options: RunOptions): Router {
  const router = Router();
  // Authentication comes before the body is even read. What the run input's schema cannot see (NUL,
  // lone surrogates, `__proto__`, nesting that would exhaust the stack) is refused as soon as it is.
  const readBody = [
    express.json({ limit: options.inputMaxBytes }),
    refuseUnstorableInput({ maxBodyDepth: JSON_MAX_DEPTH }),
  ];
  router.post('/agent/run', useSnapshot(source), requireBearer, readBody, handleRun(options));
  // Runs are records only in database mode; without it the background run is unavailable and the
  // other paths are unknown.
  const { store } = options;
  if (store === undefined) {
    router.post('/agent/runs', useSnapshot(source), requireBearer, () => {
      throw new AppError('service_unavailable', 'Background runs need the engine to run with a database.');
    });
  } else {
    router.post('/agent/runs', useSnapshot(source), requireBearer, readBody, handleBackgroundRun(store));
    router.post('/agent/runs/:runId/cancel', useSnapshot(source), requireBearer, handleCancel(store));
    router.get('/agent/runs/:runId', useSnapshot(source), requireBearer, handleRunRecord(store));
    router.get('/agent/runs/:runId/events', useSnapshot(source), requireBearer, handleRunEvents(store));
    router.get(
      '/agent/runs/:runId/stream',
      useSnapshot(source),
      requireBearer,
      handleRejoin(store, options.keepaliveMs),
    );
  }
  return router;
}
