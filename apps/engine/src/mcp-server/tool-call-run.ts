// A call of the agent's tool is a run like any other: queued on its thread with its record (source
// `mcp`), usage, trace and budget, run by whichever replica has a free slot (run-queue.ts), and followed
// through its stored events (followRun), as a queued /agent/run is. Its events become progress
// notifications while it goes; its end becomes the tool's result.
import { randomUUID } from 'node:crypto';
import type { RunAgentInput } from '@ag-ui/core';
import { AppError, type Logger } from '@agentplane/server-kit';
import type { CallToolResult, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { describeLoadFailure } from '../agents/create-agent-runtime.js';
import { logFailure, withErrorId } from '../errors/log-failure.js';
import type { RunStore } from '../runs/recorded-run.js';
import { followRun, requireEventLog } from '../runs/rejoin-handler.js';
import { requestCancel } from '../runs/run-control-records.js';
import { queueRun } from '../runs/run-handler.js';
import { configuredMultitaskStrategy } from '../runs/run-input.js';
import { findRun, isFinal } from '../runs/run-records.js';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';
import type { ThreadCaller } from '../threads/thread-scope.js';
import type { AgentToolInput, AgentToolOutput } from './agent-tool.js';
import { mcpCallRunId } from './mcp-call-cancels.js';
import { describePendingInterrupts, type PendingInterrupt, readInterrupts } from './pending-interrupts.js';

export type ToolCall = {
  /** Database mode only: without a store, runs are no records and cannot be followed. */
  store: RunStore | undefined;
  snapshot: AgentSnapshot;
  caller: ThreadCaller | undefined;
  args: AgentToolInput;
  requestId: RequestId;
  /** Told of each step of the run, when the client asked for progress. */
  progress: ((message: string) => Promise<void>) | undefined;
  /** Aborts when the client left or cancelled the request: the run is cancelled then. */
  signal: AbortSignal;
  log: Logger;
};

// A client checks the structured content of an error result against the output schema too.
const toolError = (text: string, output?: AgentToolOutput): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text }],
  ...(output === undefined ? {} : { structuredContent: output }),
});

/** Runs the agent for one tool call and answers its result; a run refused or failed is an error result. */
export async function runToolCall(call: ToolCall): Promise<CallToolResult> {
  const { store, snapshot, caller, args, log } = call;
  if (snapshot.runtime === undefined) return toolError(describeLoadFailure(snapshot.loadFailure));
  if (store === undefined) return toolError('The MCP endpoint needs the engine to run with a database.');
  const input: RunAgentInput = {
    threadId: args.thread_id ?? randomUUID(),
    runId: mcpCallRunId(call.requestId),
    messages: [{ id: randomUUID(), role: 'user', content: args.message }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  };
  const ids = { thread_id: input.threadId, run_id: input.runId };
  const refused = { reply: '', ...ids };
  try {
    requireEventLog(store, 'An MCP tool call cannot be run');
    const request = {
      input,
      onDisconnect: 'cancel' as const,
      multitaskStrategy: configuredMultitaskStrategy(snapshot.config),
    };
    await queueRun(store, snapshot, request, caller, 'mcp');
  } catch (error) {
    // A refusal (thread busy, queue full, event log off) says why; anything else is for the log only.
    if (error instanceof AppError && error.status < 500) return toolError(error.message, refused);
    const errorId = logFailure(log, 'error', error, 'could not queue the MCP tool call');
    return toolError(withErrorId('The run could not be started. Try again shortly.', errorId), refused);
  }
  const run = await followToolRun(call, store, input.runId);
  return toolResult(run, await findRun(store.pool, store.agentId, input.runId, caller), ids);
}

type FollowedRun = {
  reply: string;
  error: string | undefined;
  interrupts: PendingInterrupt[];
};

type RunEvent = {
  type?: string;
  messageId?: string;
  delta?: string;
  toolCallName?: string;
  stepName?: string;
  message?: string;
  outcome?: unknown;
};

// What a client is told of each step: the text as it comes, and the steps and tool calls between.
function progressMessage(event: RunEvent): string | undefined {
  if (event.type === 'RUN_STARTED') return 'The agent started';
  if (event.type === 'TEXT_MESSAGE_CONTENT' || event.type === 'TEXT_MESSAGE_CHUNK') return event.delta || undefined;
  if (event.type === 'TOOL_CALL_START') return `Calling the tool ${event.toolCallName ?? ''}`.trim();
  if (event.type === 'STEP_STARTED') return `Step ${event.stepName ?? ''}`.trim();
  return undefined;
}

async function followToolRun(call: ToolCall, store: RunStore, runId: string): Promise<FollowedRun> {
  const texts = new Map<string, string>();
  const followed: FollowedRun = { reply: '', error: undefined, interrupts: [] };
  await followRun({
    store,
    runId,
    caller: call.caller,
    after: 0,
    signal: call.signal,
    log: call.log,
    stream: {
      sendData: async (_id, data) => {
        const event = JSON.parse(data) as RunEvent;
        if ((event.type === 'TEXT_MESSAGE_CONTENT' || event.type === 'TEXT_MESSAGE_CHUNK') && event.delta) {
          const key = event.messageId ?? '';
          texts.set(key, (texts.get(key) ?? '') + event.delta);
        }
        if (event.type === 'RUN_ERROR') followed.error = event.message;
        if (event.type === 'RUN_FINISHED') followed.interrupts = readInterrupts(event.outcome);
        const message = progressMessage(event);
        if (message !== undefined) await call.progress?.(message);
      },
    },
  });
  // The client left or cancelled before the run ended: the run is cancelled, wherever it runs.
  if (call.signal.aborted) {
    await requestCancel(store.pool, store.agentId, runId).catch((error: unknown) =>
      call.log.warn({ err: error, run_id: runId }, 'could not cancel the run its MCP client left'),
    );
  }
  followed.reply = [...texts.values()].join('\n\n');
  return followed;
}

function toolResult(
  followed: FollowedRun,
  record: Awaited<ReturnType<typeof findRun>>,
  ids: { thread_id: string; run_id: string },
): CallToolResult {
  const output: AgentToolOutput = { reply: followed.reply, ...ids };
  if (record === undefined || !isFinal(record.status)) {
    // Cancelled by its client (who no longer reads this), or its events could not be read to the end.
    return toolError(`The run did not end while followed; GET /agent/runs/${ids.run_id} says how it ends.`, output);
  }
  if (record.status === 'succeeded') {
    return { content: [{ type: 'text', text: followed.reply }], structuredContent: output };
  }
  if (record.status === 'input_required') {
    return toolError(describePendingInterrupts(followed.interrupts, ids), {
      ...output,
      pending_interrupts: followed.interrupts,
    });
  }
  const why = followed.error ?? record.error ?? `The run ended ${record.status}.`;
  return toolError(`The run ended ${record.status}: ${why}`, output);
}
