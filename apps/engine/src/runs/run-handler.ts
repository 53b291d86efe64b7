// POST /agent/run: checks everything that can still become an HTTP error (framework, body), then
// streams the agent's events. From the first byte on, every failure is a RUN_ERROR event instead.
import { EventType, type RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { formatZodIssues } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import type { RequestHandler } from 'express';
import type pg from 'pg';
import { describeLoadFailure } from '../agents/create-agent-runtime.js';
import { getSnapshot } from '../snapshot/use-snapshot.js';
import { continueAguiThread, storeAguiRun } from '../threads/agui-threads.js';
import { callerOf } from '../threads/thread-scope.js';
import { createStateTracker } from '../threads/thread-state.js';
import { createMessageCollector } from './collect-messages.js';
import { guardEventOrder } from './event-order-guard.js';
import { openEventStream } from './event-stream.js';

export type RunOptions = {
  keepaliveMs?: number;
  /** Database mode: conversation threads are stored and continued (see threads/agui-threads.ts). */
  threads?: pg.Pool;
};

export function handleRun({ keepaliveMs, threads }: RunOptions): RequestHandler {
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
    const caller = callerOf(res.locals.claims);
    // Without the database the run still goes ahead, only without its stored thread.
    const thread = await (threads === undefined
      ? undefined
      : continueAguiThread(threads, config.agent.id, parsed.data as RunAgentInput, caller).catch((error: unknown) => {
          req.log.warn({ err: error }, 'could not load the stored thread; running without it');
          return undefined;
        }));
    const input = thread?.input ?? (parsed.data as RunAgentInput);

    // The client going away aborts the model call and any MCP call through this signal.
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const log = req.log.child({ thread_id: input.threadId, run_id: input.runId });
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
        await stream.send(event);
        if (abort.signal.aborted) break;
      }
      // Stored before the stream ends, so the client's next run sees this one. RUN_FINISHED is already
      // sent, so a storage failure can only be logged.
      if (threads !== undefined && thread !== undefined && finished) {
        await storeAguiRun(threads, config.agent.id, thread, {
          produced: collector.messages(),
          state: state.state(),
        }).catch((error: unknown) => log.error({ err: error }, 'could not store the run in its thread'));
      }
    } finally {
      stream.end();
    }
  };
}
