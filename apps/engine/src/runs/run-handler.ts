// POST /agent/run: checks everything that can still become an HTTP error (framework, body, a run id
// already taken, a thread already running under `reject`, a run or thread the database cannot record
// or read), then streams the agent's events. From the
// first byte on, every failure is a RUN_ERROR event instead. Under `enqueue`, `interrupt` or
// `rollback` (database mode) the run goes through its thread's queue like a background run, and the
// response follows it as a rejoin would: keepalives while it waits, RUN_STARTED once it starts.
import type { RunAgentInput } from '@ag-ui/core';
import { AppError, contextFromHeaders, type Logger } from '@agentplane/server-kit';
import type { Request, Response } from 'express';
import { describeLoadFailure } from '../agents/create-agent-runtime.js';
import { claimResume, withResumeClaimed } from '../interrupts/resume-claim.js';
import type { EngineMetrics } from '../metrics/engine-metrics.js';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';
import { getSnapshot } from '../snapshot/use-snapshot.js';
import { type AguiThread, aguiThreadKey, continueAguiThread } from '../threads/agui-threads.js';
import { callerOf, type ThreadCaller } from '../threads/thread-scope.js';
import { driveRun } from './drive-run.js';
import { openEventStream } from './event-stream.js';
import { meterRun } from './metered-run.js';
import { refuseFullQueue } from './pending-run-caps.js';
import { type RecordedRun, type RunStart, type RunStore, startRecordedRun, unrecordedRun } from './recorded-run.js';
import { requireEventLog, streamFollowedRun } from './rejoin-handler.js';
import { enqueueRun, requestCancel } from './run-control-records.js';
import { parseRunRequest, type RunRequest } from './run-input.js';
import type { ChannelRunSource, RunConflict, RunSource } from './run-records.js';

export type RunOptions = {
  keepaliveMs?: number;
  metrics: EngineMetrics;
  /** Database mode: threads are stored and continued (threads/agui-threads.ts), runs are records. */
  store?: RunStore;
};

const CONFLICTS: Record<RunConflict, string> = {
  run_id_taken: 'This runId was used before; every run needs a new one.',
  run_in_progress: 'A run is already in progress on this thread; wait for it to end, or rejoin it.',
};

export function refuse(conflict: RunConflict): never {
  throw new AppError('conflict', CONFLICTS[conflict], { type: conflict.replaceAll('_', '-') });
}

/**
 * Queues the run on its thread (run-control-records.ts) and wakes this replica's queue; 409 when
 * refused, 429 when a cap on waiting runs is reached.
 */
export async function queueRun(
  store: RunStore,
  snapshot: ResumableAgent,
  request: RunRequest,
  caller: ThreadCaller | undefined,
  source: Exclude<RunSource, ChannelRunSource>,
): Promise<void> {
  const { input } = request;
  const run = {
    agentId: store.agentId,
    runId: input.runId,
    threadId: input.threadId,
    threadKey: aguiThreadKey(store.agentId, caller, input.threadId),
    caller,
    source,
    input,
  };
  const claim = await claimResume(store, resumableAgent(snapshot), input, run.threadKey);
  await withResumeClaimed(claim, async () => {
    const refused = await enqueueRun(store.pool, run, request.multitaskStrategy, store.pendingCaps);
    if (refused === 'thread_queue_full' || refused === 'subject_queue_full') {
      refuseFullQueue(refused, store.pendingCaps);
    }
    if (refused !== undefined) refuse(refused);
  });
  store.wakeQueue();
}

/** What a resume is checked against: the agent's framework and its tools' input schemas. */
type ResumableAgent = Pick<AgentSnapshot, 'config' | 'toolset' | 'version'>;

export const resumableAgent = (snapshot: ResumableAgent) => ({
  framework: snapshot.config.agent.framework,
  tools: snapshot.toolset.tools,
});

async function queueAndFollow(req: Request, res: Response, store: RunStore, request: RunRequest, keepaliveMs?: number) {
  // The response would follow the queued run through its stored events, wherever it runs.
  requireEventLog(store, `A streaming run cannot be queued (multitaskStrategy "${request.multitaskStrategy}")`);
  const caller = callerOf(res.locals.claims);
  await queueRun(store, getSnapshot(res), request, caller, 'stream');
  const { runId } = request.input;
  await streamFollowedRun(req, res, store, {
    runId,
    caller,
    after: 0,
    kind: 'live',
    keepaliveMs,
    // The client leaving cancels the run unless it asked it to go on, as on the direct path.
    onClientLeft: () => {
      if (request.onDisconnect !== 'cancel') return;
      requestCancel(store.pool, store.agentId, runId).catch((error: unknown) =>
        req.log.warn({ err: error, run_id: runId }, 'could not cancel the run its client left'),
      );
    },
  });
}

const UNRECORDABLE =
  'The run could not be recorded, so it was not started: the engine cannot reach its database. Try again shortly.';

/**
 * Creates the run's row and reads its stored thread, at once: one wait for the database before the
 * first event, not two. A run that cannot be recorded is never served unrecorded (its usage would
 * escape budgets, and it would be missing from the runs and usage lists), and one whose thread cannot
 * be read would answer without the conversation and then store over it: both are a 503 before the
 * stream starts. A row created for a run whose thread could not be read is ended `failed` at once.
 */
async function startStreamRun(
  store: RunStore,
  snapshot: ResumableAgent,
  input: RunAgentInput,
  caller: ThreadCaller | undefined,
  log: Logger,
): Promise<{ record: RecordedRun; thread: AguiThread }> {
  const threadKey = aguiThreadKey(store.agentId, caller, input.threadId);
  const claim = await claimResume(store, resumableAgent(snapshot), input, threadKey);
  const start = { runId: input.runId, threadId: input.threadId, threadKey, caller, source: 'stream' as const };
  return withResumeClaimed(claim, () =>
    startClaimedStreamRun(store, input, { ...start, configVersion: snapshot.version }, log),
  );
}

async function startClaimedStreamRun(
  store: RunStore,
  input: RunAgentInput,
  start: RunStart,
  log: Logger,
): Promise<{ record: RecordedRun; thread: AguiThread }> {
  const [record, thread] = await Promise.allSettled([
    startRecordedRun(store, start, log),
    continueAguiThread(store.pool, store.agentId, input, start.caller),
  ]);
  if (record.status === 'rejected') {
    log.error({ err: record.reason }, 'could not record the run; refusing it');
  } else {
    const started = record.value;
    if (typeof started === 'string') refuse(started);
    if (thread.status === 'fulfilled') return { record: started, thread: thread.value };
    log.error({ err: thread.reason }, 'could not load the stored thread; refusing the run');
    await started.finish(false).catch((error: unknown) => log.error({ err: error }, 'could not end the refused run'));
  }
  throw new AppError('service_unavailable', UNRECORDABLE, { headers: { 'Retry-After': '5' } });
}

export function handleRun({ keepaliveMs, store, metrics }: RunOptions) {
  return async (req: Request, res: Response): Promise<void> => {
    const { runtime, loadFailure, toolset, config, tracing, runGuardrails } = getSnapshot(res);
    // The agent's module did not load (the log says why); the next config version loads it afresh.
    if (runtime === undefined) throw new AppError('service_unavailable', describeLoadFailure(loadFailure));
    const request = parseRunRequest(req, config);
    if (store !== undefined && request.multitaskStrategy !== 'reject') {
      await queueAndFollow(req, res, store, request, keepaliveMs);
      return;
    }
    const caller = callerOf(res.locals.claims);
    const { runId, threadId } = request.input;
    const log = req.log.child({ thread_id: threadId, run_id: runId });
    const { record, thread } =
      store === undefined
        ? { record: unrecordedRun(runId), thread: undefined }
        : await startStreamRun(store, getSnapshot(res), request.input, caller, log);
    const input = thread?.input ?? request.input;
    const recorded = meterRun(record, metrics.runs, 'stream');

    // The client going away aborts the model call and any MCP call through this signal, unless the
    // client asked the run to go on (it can rejoin the stream then). A cancel asked for on any replica
    // aborts it too (active-runs.ts).
    // The caller's traceparent makes the run's span a child of its own; the traceresponse header tells
    // it which trace the run is before the first event.
    const trace = tracing.startRun(input, contextFromHeaders(req.headers));
    if (trace !== undefined) res.setHeader('traceresponse', trace.traceresponse);
    const abort = new AbortController();
    if (request.onDisconnect === 'cancel') res.on('close', () => abort.abort());
    const active = store?.active.add(input.runId, abort);
    const stream = openEventStream(req, res, keepaliveMs);
    const closed = metrics.openStream('live');
    try {
      await driveRun({
        runtime,
        toolset,
        input,
        caller,
        recorded,
        signal: abort.signal,
        active,
        thread: store === undefined || thread === undefined ? undefined : { store, thread },
        send: (event, id, data) => stream.send(event, id, data),
        log,
        trace,
        approvals: { policy: config.agent.config.tools, watched: true, counter: metrics.interrupts },
        guardrails: runGuardrails,
      });
    } finally {
      stream.end();
      closed();
    }
  };
}
