// POST /agent/run: checks everything that can still become an HTTP error (framework, body), then
// streams the agent's events. From the first byte on, every failure is a RUN_ERROR event instead.
import type { RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { formatZodIssues } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import type { RequestHandler } from 'express';
import { getSnapshot } from '../snapshot/use-snapshot.js';
import { guardEventOrder } from './event-order-guard.js';
import { openEventStream } from './event-stream.js';

export function handleRun({ keepaliveMs }: { keepaliveMs?: number }): RequestHandler {
  return async (req, res) => {
    const { runtime, loadError, toolset } = getSnapshot(res);
    // The agent's module did not load (/health says why); the next config version loads it afresh.
    if (runtime === undefined) throw new AppError('service_unavailable', loadError?.message ?? 'No agent is loaded.');
    if (!req.is('application/json')) {
      throw new AppError('unsupported_media_type', 'Send the RunAgentInput as application/json.');
    }
    const parsed = RunAgentInputSchema.safeParse(req.body);
    if (!parsed.success) {
      throw new AppError('validation_failed', 'The body is not a valid AG-UI RunAgentInput.', {
        errors: formatZodIssues(parsed.error),
      });
    }
    const input = parsed.data as RunAgentInput;

    // The client going away aborts the model call and any MCP call through this signal.
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const log = req.log.child({ thread_id: input.threadId, run_id: input.runId });
    const stream = openEventStream(req, res, keepaliveMs);
    try {
      const events = runtime.run({ input, signal: abort.signal, toolbox: toolset });
      for await (const event of guardEventOrder(events, input, abort.signal, log)) {
        await stream.send(event);
        if (abort.signal.aborted) break;
      }
    } finally {
      stream.end();
    }
  };
}
