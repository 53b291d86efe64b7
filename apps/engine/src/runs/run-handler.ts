// POST /agent/run: checks everything that can still become an HTTP error (framework, body, a run id
// already taken, a thread already running), then streams the agent's events. From the first byte on,
// every failure is a RUN_ERROR event instead.
import { EventType, type RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { formatZodIssues } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import type { RequestHandler } from 'express';
import { describeLoadFailure } from '../agents/create-agent-runtime.js';
import { getSnapshot } from '../snapshot/use-snapshot.js';
import { aguiThreadKey, continueAguiThread, storeAguiRun } from '../threads/agui-threads.js';
import { callerOf } from '../threads/thread-scope.js';
import { createStateTracker } from '../threads/thread-state.js';
import { createMessageCollector } from './collect-messages.js';
import { readDisconnectPolicy } from './disconnect-policy.js';
import { guardEventOrder } from './event-order-guard.js';
import { openEventStream } from './event-stream.js';
import { type RecordedRun, type RunStore, startRecordedRun, unrecordedRun } from './recorded-run.js';
import type { RunConflict } from './run-records.js';

export type RunOptions = {
  keepaliveMs?: number;
  /** Database mode: threads are stored and continued (threads/agui-threads.ts), runs are records. */
  store?: RunStore;
};

const CONFLICTS: Record<RunConflict, string> = {
  run_id_taken: 'This runId was used before; every run needs a new one.',
  run_in_progress: 'A run is already in progress on this thread; wait for it to end, or rejoin it.',
};

function refuse(conflict: RunConflict): never {
  throw new AppError('conflict', CONFLICTS[conflict], { type: conflict.replaceAll('_', '-') });
}

export function handleRun({ keepaliveMs, store }: RunOptions): RequestHandler {
  return async (req, res) => {
    const { runtime, loadFailure, toolset, config } = getSnapshot(res);
    // The agent's module did not load (the log says why); the next config version loads it afresh.
    if (runtime === undefined) throw new AppError('service_unavailable', describeLoadFailure(loadFailure));
    if (!req.is('application/json')) {
      throw new AppError('unsupported_media_type', 'Send the RunAgentInput as application/json.');
    }
    const parsed = RunAgentInputSchema.safeParse(req.body);
    if (!parsed.success) {
      throw new AppError('validation_failed', 'The body is not a valid AG-UI RunAgentInput.', {
        errors: formatZodIssues(parsed.error),
      });
    }
    const onDisconnect = readDisconnectPolicy(parsed.data.forwardedProps);
    const caller = callerOf(res.locals.claims);
    const agentId = config.agent.id;
    // Without the database the run still goes ahead, only without its stored thread.
    const thread = await (store === undefined
      ? undefined
      : continueAguiThread(store.pool, agentId, parsed.data as RunAgentInput, caller).catch((error: unknown) => {
          req.log.warn({ err: error }, 'could not load the stored thread; running without it');
          return undefined;
        }));
    const input = thread?.input ?? (parsed.data as RunAgentInput);
    const log = req.log.child({ thread_id: input.threadId, run_id: input.runId });

    let recorded: RecordedRun = unrecordedRun(input.runId);
    if (store !== undefined) {
      const start = {
        runId: input.runId,
        threadId: input.threadId,
        threadKey: thread?.key ?? aguiThreadKey(agentId, caller, input.threadId),
        caller,
        source: 'stream' as const,
      };
      // As with its thread: a database that fails does not stop the run, it only goes unrecorded.
      const started = await startRecordedRun(store, start, log).catch((error: unknown) => {
        log.warn({ err: error }, 'could not record the run; running it unrecorded');
        return undefined;
      });
      if (typeof started === 'string') refuse(started);
      if (started !== undefined) recorded = started;
    }

    // The client going away aborts the model call and any MCP call through this signal, unless the
    // client asked the run to go on (it can rejoin the stream then).
    const abort = new AbortController();
    if (onDisconnect === 'cancel') res.on('close', () => abort.abort());
    const stream = openEventStream(req, res, keepaliveMs);
    const collector = createMessageCollector();
    const state = createStateTracker(input.state);
    let finished = false;
    try {
      const events = runtime.run({ input, signal: abort.signal, toolbox: toolset, caller });
      for await (const event of guardEventOrder(events, input, abort.signal, log)) {
        collector.observe(event);
        state.observe(event);
        finished = event.type === EventType.RUN_FINISHED;
        const { id, data } = recorded.record(event);
        await stream.send(event, id, data);
        if (abort.signal.aborted) break;
      }
      // Stored before the stream ends, so the client's next run sees this one. RUN_FINISHED is already
      // sent, so a storage failure can only be logged.
      if (store !== undefined && thread !== undefined && finished) {
        await storeAguiRun(store.pool, agentId, thread, {
          produced: collector.messages(),
          state: state.state(),
        }).catch((error: unknown) => log.error({ err: error }, 'could not store the run in its thread'));
      }
    } finally {
      await recorded.finish(abort.signal.aborted);
      stream.end();
    }
  };
}
