// The built-in LLM agent: a tool-calling loop over a chat model. Server tools (MCP) run here and their
// results go back to the model; a call of a frontend tool (one of RunAgentInput.tools) ends the run,
// per AG-UI, so the client can run it and start a new run with the result.
//
// A call of a tool the policy wants approved is not made: in a watched run, the run ends with an AG-UI
// interrupt per such call (the step's other calls run), and the run that resumes it makes or refuses
// it; in a run nobody watches, the policy's `unattended` decides at once.
//
// maxSteps bounds the model calls of one run. A run that still wants tools after the last step ends
// with RUN_ERROR code "max_steps_exceeded": it has no final answer, and saying so beats pretending.
import { randomUUID } from 'node:crypto';
import { type BaseEvent, EventType, type Interrupt } from '@ag-ui/core';
import { toolApprovalInterrupt } from '../../interrupts/tool-approval.js';
import {
  AgentRunError,
  type AgentRunRequest,
  type AgentRuntime,
  type ResumedToolCall,
  type ToolApprovals,
  type ToolOutcome,
} from '../agent-runtime.js';
import type { ChatMessage, ChatModel, ChatTool } from './chat-model.js';
import { type ModelTurn, streamModelTurn, type TurnToolCall } from './stream-model-turn.js';
import { toChatMessages, toChatTool } from './to-chat-messages.js';
import { answerUnansweredCalls, insertToolMessage } from './unanswered-calls.js';

export type LlmAgentOptions = {
  model: ChatModel;
  /** The agent's model config: reported with each call's usage ("<provider>/<name>") and on its spans. */
  modelRef: { provider: string; name: string };
  instructions: string | undefined;
  maxSteps: number;
};

function toAssistantMessage(turn: ModelTurn): ChatMessage {
  return {
    role: 'assistant',
    content: turn.text === '' ? null : turn.text,
    ...(turn.toolCalls.length > 0
      ? {
          tool_calls: turn.toolCalls.map((call) => ({
            id: call.id,
            type: 'function' as const,
            function: { name: call.name, arguments: call.arguments },
          })),
        }
      : {}),
  };
}

function parseArguments(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text === '' ? '{}' : text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

async function callServerTool(call: TurnToolCall, request: AgentRunRequest): Promise<ToolOutcome> {
  const args = parseArguments(call.arguments);
  if (args === undefined) return { text: `The arguments of "${call.name}" are not a JSON object.`, isError: true };
  return request.toolbox.call(call.name, args, request.signal);
}

const refusal = (name: string, why: string): ToolOutcome => ({
  text: `The call of the tool "${name}" was not made: ${why}.`,
  isError: true,
});

async function runServerTool(call: TurnToolCall, request: AgentRunRequest): Promise<ToolOutcome> {
  const server = request.toolbox.tools.find((tool) => tool.name === call.name)?.server;
  const span = request.trace?.startTool({ ...call, server, arguments: () => call.arguments });
  try {
    const outcome = await callServerTool(call, request);
    span?.end({ isError: outcome.isError, result: () => outcome.text });
    return outcome;
  } catch (error) {
    span?.fail(error);
    throw error;
  }
}

function* toolResult(toolCallId: string, outcome: ToolOutcome, messages: ChatMessage[]): Generator<BaseEvent> {
  yield { type: EventType.TOOL_CALL_RESULT, messageId: randomUUID(), toolCallId, content: outcome.text, role: 'tool' };
  insertToolMessage(messages, { role: 'tool', tool_call_id: toolCallId, content: outcome.text });
}

function raiseInterrupt(call: TurnToolCall, request: AgentRunRequest, approvals: ToolApprovals): Interrupt {
  const parameters = request.toolbox.tools.find((tool) => tool.name === call.name)?.parameters;
  const args = parseArguments(call.arguments) ?? {};
  const interrupt = toolApprovalInterrupt(
    randomUUID(),
    { toolCallId: call.id, toolName: call.name, arguments: args, parameters },
    approvals.expiresAt(),
  );
  approvals.report('raised', { toolName: call.name, toolCallId: call.id });
  return interrupt;
}

async function answerResumedCall(resumed: ResumedToolCall, request: AgentRunRequest): Promise<ToolOutcome> {
  const call = { toolName: resumed.toolName, toolCallId: resumed.toolCallId };
  if (resumed.approvedArguments === undefined) {
    request.approvals?.report('rejected', call);
    return refusal(resumed.toolName, 'a human rejected it');
  }
  request.approvals?.report('approved', call);
  return runServerTool(
    { id: resumed.toolCallId, name: resumed.toolName, arguments: JSON.stringify(resumed.approvedArguments) },
    request,
  );
}

/** One model call, in its `chat` span when the run is traced. */
async function* callModel(
  request: AgentRunRequest,
  options: LlmAgentOptions,
  messages: ChatMessage[],
  tools: ChatTool[],
): AsyncGenerator<BaseEvent, ModelTurn> {
  const span = request.trace?.startChat(options.modelRef, () => messages);
  try {
    const turn = yield* streamModelTurn(options.model.stream({ messages, tools, signal: request.signal }));
    span?.end({
      inputTokens: turn.usage?.inputTokens,
      outputTokens: turn.usage?.outputTokens,
      // The chat shapes here carry no provider finish reason; a turn that asks for tools stopped for them.
      finishReasons: [turn.toolCalls.length > 0 ? 'tool_calls' : 'stop'],
      output: () => toAssistantMessage(turn),
    });
    return turn;
  } catch (error) {
    span?.fail(error);
    throw error;
  } finally {
    // Reached without an end only when the run stopped pulling: the client left or a cancel came.
    span?.fail(undefined, 'aborted');
  }
}

async function* runLlmAgent(request: AgentRunRequest, options: LlmAgentOptions): AsyncGenerator<BaseEvent> {
  const { input, toolbox } = request;
  const { threadId, runId } = input;
  yield { type: EventType.RUN_STARTED, threadId, runId };

  const serverToolNames = new Set(toolbox.tools.map((tool) => tool.name));
  // On a name clash the agent's own (MCP) tool wins: the operator configured it, the caller did not.
  const frontendTools = input.tools.filter((tool) => !serverToolNames.has(tool.name));
  const frontendToolNames = new Set(frontendTools.map((tool) => tool.name));
  const tools = [...toolbox.tools, ...frontendTools].map(toChatTool);
  const messages = toChatMessages(input, options.instructions);

  // A resumed run first answers the calls its thread's last run stopped at; while some stay open, the
  // model cannot go on (every call of its turn needs a result), so the run ends waiting for them again.
  for (const resumed of request.approvals?.resumed ?? []) {
    yield* toolResult(resumed.toolCallId, await answerResumedCall(resumed, request), messages);
  }
  const stillOpen = request.approvals?.open ?? [];
  if (stillOpen.length > 0) {
    yield { type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: 'interrupt', interrupts: [...stillOpen] } };
    return;
  }
  answerUnansweredCalls(messages);

  for (let step = 1; step <= options.maxSteps; step++) {
    const turn = yield* callModel(request, options, messages, tools);
    if (turn.usage !== undefined) {
      request.reportUsage?.({ ...turn.usage, model: `${options.modelRef.provider}/${options.modelRef.name}` });
    }
    messages.push(toAssistantMessage(turn));
    if (turn.toolCalls.length === 0) {
      yield { type: EventType.RUN_FINISHED, threadId, runId };
      return;
    }
    const pendingToolCallIds: string[] = [];
    const interrupts: Interrupt[] = [];
    for (const call of turn.toolCalls) {
      if (frontendToolNames.has(call.name)) {
        pendingToolCallIds.push(call.id);
        continue;
      }
      const approval = request.approvals?.needs(call.name) ? request.approvals : undefined;
      if (approval?.mode === 'pause') {
        interrupts.push(raiseInterrupt(call, request, approval));
        continue;
      }
      if (approval !== undefined) {
        approval.report(approval.mode === 'allow' ? 'unattended_allowed' : 'unattended_rejected', {
          toolName: call.name,
          toolCallId: call.id,
        });
      }
      const outcome =
        approval?.mode === 'reject'
          ? refusal(call.name, 'it needs a human approval, and nobody can give one to this run')
          : await runServerTool(call, request);
      yield* toolResult(call.id, outcome, messages);
    }
    // The approvals come first: the client's own tool calls can be answered with them, on the resuming run.
    if (interrupts.length > 0) {
      yield { type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: 'interrupt', interrupts } };
      return;
    }
    if (pendingToolCallIds.length > 0) {
      yield { type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: 'success', pendingToolCallIds } };
      return;
    }
  }
  throw new AgentRunError(
    `The agent stopped after ${options.maxSteps} model steps without a final answer.`,
    'max_steps_exceeded',
  );
}

export function createLlmAgent(options: LlmAgentOptions): AgentRuntime {
  return {
    run: (request) => runLlmAgent(request, options),
    // The tool policy's approvals pause runs with interrupts, and an approval may edit the arguments.
    capabilities: {
      agui: { humanInTheLoop: { supported: true, approvals: true, interrupts: true, approveWithEdits: true } },
    },
  };
}
