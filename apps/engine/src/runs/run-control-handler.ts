// POST /agent/runs: a background run, queued on its thread and answered 202 at once; it starts on a
// replica with a free slot (run-queue.ts). POST /agent/runs/{id}/cancel: cancels a waiting run at once
// and asks the replica running a running one to stop it; 202 with `cancelled` or `running` (asked to stop).
import { AppError } from '@agentplane/server-kit';
import type { Request, Response } from 'express';
import { describeLoadFailure } from '../agents/create-agent-runtime.js';
import { getSnapshot } from '../snapshot/use-snapshot.js';
import { callerOf } from '../threads/thread-scope.js';
import type { RunStore } from './recorded-run.js';
import { findOwnRun } from './rejoin-handler.js';
import { requestCancel } from './run-control-records.js';
import { queueRun } from './run-handler.js';
import type { RunIdInput } from './run-id-param.js';
import { parseRunRequest } from './run-input.js';
import { isFinal } from './run-records.js';

export function handleBackgroundRun(store: RunStore) {
  return async (req: Request, res: Response): Promise<void> => {
    const snapshot = getSnapshot(res);
    const { runtime, loadFailure, config } = snapshot;
    if (runtime === undefined) throw new AppError('service_unavailable', describeLoadFailure(loadFailure));
    const request = parseRunRequest(req, config);
    await queueRun(store, snapshot, request, callerOf(res.locals.claims), 'background');
    const { runId, threadId } = request.input;
    res
      .status(202)
      .location(`/agent/runs/${encodeURIComponent(runId)}`)
      .json({
        run_id: runId,
        thread_id: threadId,
        status: 'pending',
      });
  };
}

export function handleCancel(store: RunStore) {
  return async ({ params: { runId } }: RunIdInput, _req: Request, res: Response): Promise<void> => {
    const run = await findOwnRun(store, runId, res);
    const outcome = isFinal(run.status) ? 'over' : await requestCancel(store.pool, store.agentId, runId);
    if (outcome === 'over') throw new AppError('conflict', 'The run is already over.', { type: 'run-finished' });
    // `running`: the replica running it is told, and it ends `cancelled` once that replica stopped it.
    const status = outcome === 'cancelled' ? 'cancelled' : 'running';
    res.status(202).json({ run_id: run.id, thread_id: run.thread_id, status });
  };
}
