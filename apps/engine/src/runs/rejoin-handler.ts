// GET /agent/runs/{runId}/stream: a run's stored events after Last-Event-ID (from the start without
// one), then the ones still to come until the run ends, with the same `id:` and `data:` lines a live
// client got. Any replica serves it: it follows the run through the database (run-notifications.ts),
// not through the memory of the replica running it. GET /agent/runs/{runId}: the run's record.

import type { Logger } from '@agentplane/server-kit';
import { AppError } from '@agentplane/server-kit';
import type { Request, Response } from 'express';
import type { StreamKind } from '../metrics/engine-metrics.js';
import { callerOf, type ThreadCaller } from '../threads/thread-scope.js';
import { type EventStream, openEventStream } from './event-stream.js';
import type { RunStore } from './recorded-run.js';
import { REPLAY_PAGE, type RunProgress } from './run-follow-reads.js';
import type { RunIdInput } from './run-id-param.js';
import { type FoundRun, findRun, isFinal } from './run-records.js';

async function findCallersRun(store: RunStore, runId: string, caller: ThreadCaller | undefined): Promise<FoundRun> {
  const run = await findRun(store.pool, store.agentId, runId, caller);
  // Another caller's run is as unknown as a run that never was.
  if (run === undefined) throw new AppError('not_found', 'No run with this id.');
  return run;
}

export function findOwnRun(store: RunStore, runId: string, res: Response): Promise<FoundRun> {
  return findCallersRun(store, runId, callerOf(res.locals.claims));
}

/**
 * Refuses what follows a run through its stored events when the engine stores none
 * (ENGINE_RUN_EVENT_LOG=off): a 409 saying so, before any stream opens or run is queued.
 */
export function requireEventLog(store: RunStore, refused: string): void {
  if (store.eventLog) return;
  throw new AppError('conflict', `${refused}: this engine does not store runs' events (ENGINE_RUN_EVENT_LOG=off).`, {
    type: 'event-log-off',
  });
}

/** Sends the run's stored events after `after`, then the ones still to come, until it ends or `signal` aborts. */
export async function followRun(options: {
  store: RunStore;
  runId: string;
  caller: ThreadCaller | undefined;
  after: number;
  /** The run as the caller's check just read it, if it did: not read a second time then. */
  found?: RunProgress | undefined;
  /** Where the stored events go: an SSE response, or a reader of them (an MCP tool call). */
  stream: Pick<EventStream, 'sendData'>;
  signal: AbortSignal;
  log: Logger;
}): Promise<void> {
  const { store, runId, caller, stream, signal } = options;
  const { notifications, follows } = store;
  let after = options.after;
  try {
    // The caller's right to the run is checked once; after that its progress is read as everyone's.
    let run: RunProgress | undefined = options.found ?? (await findCallersRun(store, runId, caller));
    while (!signal.aborted) {
      const events = await follows.events(runId, after);
      for (const event of events) {
        await stream.sendData(`${runId}:${event.seq}`, event.data);
        after = event.seq;
      }
      if (events.length === REPLAY_PAGE) continue;
      // Final only once its last event is stored (recorded-run.ts), so nothing is left to read then.
      if (isFinal(run.status) && after >= run.last_seq) break;
      // Registered before the progress is read again: news arriving in between wakes this follower.
      const unneeded = new AbortController();
      const change = notifications.nextChange(runId, AbortSignal.any([signal, unneeded.signal]));
      run = await follows.progress(runId);
      if (run === undefined) throw new AppError('not_found', 'The run is gone.');
      if (run.last_seq <= after && !isFinal(run.status)) await change;
      else unneeded.abort();
    }
  } catch (error) {
    options.log.warn({ err: error, run_id: runId }, 'could not follow the run');
  }
}

/**
 * Follows the run on this response, as SSE, until it ends or the client leaves; `onClientLeft` is
 * called when the client leaves before the run ended. Shared by rejoins and queued streaming runs.
 */
export async function streamFollowedRun(
  req: Request,
  res: Response,
  store: RunStore,
  options: {
    runId: string;
    caller: ThreadCaller | undefined;
    after: number;
    found?: RunProgress;
    kind: StreamKind;
    keepaliveMs?: number | undefined;
    onClientLeft?: () => void;
  },
): Promise<void> {
  const { runId, caller, after, found, kind, keepaliveMs, onClientLeft } = options;
  const gone = new AbortController();
  let ended = false;
  res.on('close', () => {
    gone.abort();
    if (!ended) onClientLeft?.();
  });
  const stream = openEventStream(req, res, keepaliveMs, { sseOnly: true });
  const closed = store.metrics.openStream(kind);
  try {
    await followRun({ store, runId, caller, after, found, stream, signal: gone.signal, log: req.log });
    ended = !gone.signal.aborted;
  } finally {
    stream.end();
    closed();
  }
}

/** The seq after which to replay: Last-Event-ID is "<runId>:<seq>", as the stream's ids are. */
export function replayFrom(runId: string, lastEventId: string | undefined): number {
  if (lastEventId === undefined || lastEventId === '') return 0;
  const separator = lastEventId.lastIndexOf(':');
  const seq = lastEventId.slice(separator + 1);
  if (separator < 0 || lastEventId.slice(0, separator) !== runId || !/^\d{1,9}$/.test(seq)) {
    throw new AppError('bad_request', 'Last-Event-ID is not an event id of this run ("<runId>:<seq>").');
  }
  return Number(seq);
}

export function handleRunRecord(store: RunStore) {
  return async ({ params: { runId } }: RunIdInput, _req: Request, res: Response): Promise<void> => {
    const run = await findOwnRun(store, runId, res);
    res.json({
      id: run.id,
      thread_id: run.thread_id,
      status: run.status,
      source: run.source,
      error: run.error,
      usage: run.usage,
      created_at: run.created_at,
      started_at: run.started_at,
      finished_at: run.finished_at,
      caller_agent_id: run.caller_agent_id,
      caller_run_id: run.caller_run_id,
      guardrail_actions: run.guardrail_actions,
    });
  };
}

export function handleRejoin(store: RunStore, keepaliveMs?: number) {
  return async ({ params: { runId } }: RunIdInput, req: Request, res: Response): Promise<void> => {
    requireEventLog(store, 'A run cannot be rejoined');
    const after = replayFrom(runId, req.get('last-event-id'));
    // Unknown before the stream opens: a 404, not an empty stream.
    const found = await findOwnRun(store, runId, res);
    const caller = callerOf(res.locals.claims);
    await streamFollowedRun(req, res, store, { runId, caller, after, found, kind: 'rejoin', keepaliveMs });
  };
}
