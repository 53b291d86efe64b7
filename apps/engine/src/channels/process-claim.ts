// Answers one claimed channel message and says how it went: run the agent on the conversation's thread
// (streaming the reply as edits where the provider edits), store the reply with the new turn, send it
// in parts, then ask for the tool approvals the run paused on (where the provider has buttons). A
// press of such a button resumes the run when it comes from whoever started it. The reply is stored
// before it is sent, so a retry after a provider failure sends it again without running the agent
// again, and starts at the first part not yet delivered. Each progress write is made under the claim's
// lease; the first one that finds the lease lost ends the work before anything more is sent.
import { randomUUID } from 'node:crypto';
import type { Message, RunAgentInput } from '@ag-ui/core';
import { BUDGET_EXCEEDED_CODE, GUARDRAIL_BLOCKED_CODE, type TEngineBudgets } from '@agentplane/contracts';
import { AppError, type Logger } from '@agentplane/server-kit';
import type { AgentDb } from '../database/agent-db.js';
import type { ChannelWorkerSettings } from '../env.js';
import { runInterrupts, storeInterrupts } from '../interrupts/interrupt-records.js';
import { claimResume, type ResumeClaim, withResumeClaimed } from '../interrupts/resume-claim.js';
import { meterRun } from '../runs/metered-run.js';
import { type RecordedRun, type RunStore, startRecordedRun, unrecordedRun } from '../runs/recorded-run.js';
import { resumableAgent } from '../runs/run-handler.js';
import type { ChannelRunSource } from '../runs/run-records.js';
import { type CompletedRun, runToCompletion } from '../runs/run-to-completion.js';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';
import { scopedThreadId } from '../threads/thread-scope.js';
import { appendThreadMessages, loadThreadMessages, withTransaction } from '../threads/thread-store.js';
import { starterOf } from './approval-presses.js';
import { ChannelApiError, type ChannelOutbound, type InboundItem } from './channel-adapter.js';
import type { ChannelAdapters } from './channel-adapters.js';
import type { ClaimOutcome } from './claim-outcome.js';
import {
  type ClaimedMessage,
  type ReplyState,
  savePartsSent,
  saveReply,
  saveReplyState,
  saveRunId,
} from './inbound-queue.js';
import { providerName } from './provider-names.js';
import { inboundItemOf } from './queued-item.js';
import { type SettledStream, startReplyStream } from './reply-stream.js';
import { splitText } from './split-text.js';

export type ClaimContext = {
  pool: AgentDb;
  agentId: string;
  settings: ChannelWorkerSettings;
  adapters: ChannelAdapters;
  /** Where the reply's run is recorded (agent_runs, source: the provider); not recorded without it. */
  runs?: RunStore | undefined;
  /** Aborted when the engine stops: the message in hand is given back. */
  signal: AbortSignal;
  log: Logger;
};

const MAX_RETRY_DELAY_MS = 3_600_000;

/** Runs of a channel are recorded under its provider's name ('whatsapp', 'slack', 'google_chat'). */
export const runSourceOf = (provider: string) => provider.toLowerCase() as ChannelRunSource;

/** One thread per conversation on the provider, scoped by the agent and the integration it came through. */
export const threadKeyOf = (agentId: string, provider: string, integrationId: string, conversation: string) =>
  `${runSourceOf(provider)}:${scopedThreadId(agentId, { issuer: integrationId, subject: conversation }, '')}`;

/** Exponential backoff with ±50 % jitter, so retries of many messages spread out. */
export function retryDelayMs(attempts: number, baseMs: number, random = Math.random): number {
  const delay = Math.min(baseMs * 2 ** Math.max(attempts - 1, 0), MAX_RETRY_DELAY_MS);
  return delay * (0.5 + random());
}

/** A failure worth another attempt (the model had a bad moment). */
class RetryableError extends Error {}

/** A progress write found the claim's lease taken over. */
class LeaseLostError extends Error {
  constructor(readonly during: string) {
    super(`the lease was lost while ${during}`);
  }
}

function keepLease(held: boolean, during: string): void {
  if (!held) throw new LeaseLostError(during);
}

/** A reply, and what its stream left on the provider (none when it did not stream, or on a later attempt). */
type Produced = { text: string; streamed?: SettledStream | undefined };

type Reply = Produced & { outbound: ChannelOutbound; item: InboundItem; claim: ClaimedMessage };

/** The agent's budget's reply, else the workspace's, else the operator's default. */
function budgetReplyOf(budgets: TEngineBudgets, fallback: string): string {
  return budgets.agent?.whatsapp_reply ?? budgets.workspace?.whatsapp_reply ?? fallback;
}

/**
 * The fixed reply to a run that could not answer and would not answer on a retry either: a spent
 * budget (the agent did not run), or a guardrail that blocked the message or the answer. The thread
 * keeps nothing of such a turn.
 */
function refusalOf(run: CompletedRun, snapshot: AgentSnapshot, settings: ChannelWorkerSettings): string | undefined {
  if (run.finished) return undefined;
  if (run.code === BUDGET_EXCEEDED_CODE) return budgetReplyOf(snapshot.config.budgets, settings.budgetExceededReply);
  if (run.code === GUARDRAIL_BLOCKED_CODE) return settings.guardrailBlockedReply;
  return undefined;
}

/** The reply's run record; the queue answers a conversation's messages one at a time, so the thread is ours. */
async function recordRun(
  context: ClaimContext,
  claim: ClaimedMessage,
  input: RunAgentInput,
  configVersion: number,
): Promise<RecordedRun> {
  if (context.runs === undefined) return unrecordedRun(input.runId);
  const source = runSourceOf(claim.provider);
  const recorded = await startRecordedRun(
    context.runs,
    {
      runId: input.runId,
      threadId: input.threadId,
      threadKey: input.threadId,
      caller: undefined,
      source,
      configVersion,
      supersede: true,
    },
    context.log,
  );
  if (typeof recorded === 'string') throw new RetryableError(`the run could not be recorded (${recorded})`);
  return meterRun(recorded, context.runs.metrics.runs, source);
}

/** Streams the reply as edits where the provider edits; otherwise nothing is shown before the end. */
function streamOf(context: ClaimContext, claim: ClaimedMessage, outbound: ChannelOutbound, item: InboundItem) {
  const { edit } = outbound;
  if (edit === undefined) return undefined;
  return startReplyStream({
    outbound: { ...outbound, edit },
    address: item.address,
    state: claim.replyState,
    save: async (state) => {
      keepLease(await saveReplyState(context.pool, claim, state), 'saving the streamed message');
      claim.replyState = state;
    },
    signal: context.signal,
    log: context.log,
  });
}

/** Where the run's interrupts are kept when the provider can ask for approvals; else the run does not pause. */
function pauseOf(context: ClaimContext, outbound: ChannelOutbound, threadKey: string) {
  if (outbound.askApproval === undefined || context.runs === undefined) return undefined;
  return { db: context.pool, agentId: context.agentId, threadKey, ttlSeconds: context.runs.interruptTtlSeconds };
}

type Turn = {
  snapshot: AgentSnapshot;
  outbound: ChannelOutbound;
  item: InboundItem;
  input: RunAgentInput;
  /** The message the turn answers; none when it resumes a paused run. */
  userMessage: Message | undefined;
};

/** Runs the agent on the conversation's thread and stores its answer with the turn, in one transaction. */
async function runTurn(context: ClaimContext, claim: ClaimedMessage, turn: Turn): Promise<Produced> {
  const { pool, agentId, signal, log } = context;
  const { snapshot, outbound, item, input, userMessage } = turn;
  const key = input.threadId;
  keepLease(await saveRunId(pool, claim, input.runId), 'naming the run');
  claim.runId = input.runId;
  const recorded = await recordRun(context, claim, input, snapshot.version);
  const stream = streamOf(context, claim, outbound, item);
  let run: CompletedRun;
  let streamed: SettledStream | undefined;
  try {
    run = await runToCompletion(snapshot, input, {
      signal,
      logger: log,
      recorded,
      interrupts: context.runs?.metrics.interrupts,
      ...(stream === undefined ? {} : { onText: stream.update }),
      pause: pauseOf(context, outbound, key),
    });
  } finally {
    streamed = await stream?.settle();
  }
  const refusal = refusalOf(run, snapshot, context.settings);
  if (refusal !== undefined) {
    keepLease(await saveReply(pool, claim, refusal), 'storing the reply');
    return { text: refusal, streamed };
  }
  if (!run.finished) {
    throw new RetryableError(`the agent run failed (${run.code}): ${run.message}`);
  }
  const { interrupts, messages, text } = run;
  // The message as the agent was given it: redacted where an input guardrail said so.
  const given = userMessage && (run.input.messages.find((message) => message.id === userMessage.id) ?? userMessage);
  // A lost lease rolls the turn back too: the new holder stores its own.
  await withTransaction(pool, async (client) => {
    await appendThreadMessages(client, agentId, key, [...(given ? [given] : []), ...messages]);
    if (interrupts.length > 0) await storeInterrupts(client, agentId, key, input.runId, interrupts);
    keepLease(await saveReply(client, claim, text), 'storing the reply');
  });
  return { text, streamed };
}

function inputOf(threadId: string, messages: Message[], resume?: RunAgentInput['resume']): RunAgentInput {
  return {
    threadId,
    runId: randomUUID(),
    messages,
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
    ...(resume === undefined ? {} : { resume }),
  };
}

const threadOf = (context: ClaimContext, claim: ClaimedMessage) =>
  threadKeyOf(context.agentId, claim.provider, claim.integrationId, claim.conversation);

/** A message: the agent answers it on the conversation's thread. */
async function answerMessage(
  context: ClaimContext,
  claim: ClaimedMessage,
  turn: Omit<Turn, 'input' | 'userMessage'>,
  text: string,
): Promise<Produced> {
  const key = threadOf(context, claim);
  const history = await loadThreadMessages(context.pool, context.agentId, key);
  const userMessage: Message = { id: claim.providerMessageId, role: 'user', content: text };
  return runTurn(context, claim, { ...turn, input: inputOf(key, [...history, userMessage]), userMessage });
}

/** An item that is not answered, for a reason: the press of someone else, of an interrupt long gone. */
class SkipError extends Error {}

/**
 * A press of an approval button: resumes the run that asked, as a client's resume would (the interrupt
 * claimed first: an expired or answered one is refused), when the presser is who started that run.
 */
async function answerPress(
  context: ClaimContext,
  claim: ClaimedMessage,
  turn: Omit<Turn, 'input' | 'userMessage'>,
  press: InboundItem & { kind: 'approval' },
): Promise<Produced> {
  const { pool, agentId, runs } = context;
  const key = threadOf(context, claim);
  const starter = await starterOf(pool, agentId, key, claim.integrationId, press.interruptId);
  if (starter === undefined) throw new SkipError("the press names no approval of this conversation's runs");
  if (starter !== claim.sender) {
    throw new SkipError('the press is not from whoever started the run: only they can answer its approvals');
  }
  if (runs === undefined) throw new SkipError('the engine keeps no runs to resume');
  const history = await loadThreadMessages(pool, agentId, key);
  const resume = [{ interruptId: press.interruptId, status: press.approved ? 'resolved' : 'cancelled' } as const];
  const input = inputOf(key, history, resume);
  let resumeClaim: ResumeClaim;
  try {
    resumeClaim = await claimResume(runs, resumableAgent(turn.snapshot), input, key);
  } catch (error) {
    if (error instanceof AppError) throw new SkipError(`the approval cannot be answered: ${error.message}`);
    throw error;
  }
  return withResumeClaimed(resumeClaim, () => runTurn(context, claim, { ...turn, input, userMessage: undefined }));
}

async function produceReply(
  context: ClaimContext,
  claim: ClaimedMessage,
  turn: Omit<Turn, 'input' | 'userMessage'>,
): Promise<Produced> {
  if (claim.replyText !== null) return { text: claim.replyText };
  const { item } = turn;
  if (item.kind === 'approval') return answerPress(context, claim, turn, item);
  if (item.text !== undefined) return answerMessage(context, claim, turn, item.text);
  const reply = context.settings.unsupportedMessageReply;
  keepLease(await saveReply(context.pool, claim, reply), 'storing the reply');
  return { text: reply };
}

/**
 * Sends the reply formatted, in parts of the provider's length, from the first part not yet sent. A
 * message the stream posted becomes the first part, edited to its final text unless it shows that already.
 */
async function deliver(context: ClaimContext, { text, streamed, outbound, item, claim }: Reply): Promise<void> {
  const { signal, pool } = context;
  const parts = splitText(outbound.format(text), outbound.maxLength);
  const posted = claim.replyState?.posted[0];
  for (let index = claim.replyPartsSent; index < parts.length; index++) {
    const part = String(parts[index]);
    if (index === 0 && posted !== undefined && outbound.edit !== undefined) {
      // An edit that changes nothing spends a call of the provider's rate limit, and Telegram refuses it.
      if (part !== streamed?.shown) await outbound.edit(item.address, posted, part, signal);
    } else {
      await outbound.post(item.address, part, signal);
    }
    // Sent but not recorded when the lease is gone: the new holder sends this part again (the window
    // docs/pages/channels/whatsapp.md describes). Sending the next one too would make it two parts twice.
    keepLease(await savePartsSent(pool, claim, index + 1), `recording part ${index + 1} of ${parts.length}`);
  }
}

/** Posts an approval message for each tool call the reply's run paused on, from the first not yet asked. */
async function askApprovals(context: ClaimContext, claim: ClaimedMessage, { outbound, item }: Reply): Promise<void> {
  const { askApproval } = outbound;
  if (askApproval === undefined || claim.runId === null) return;
  const raised = await runInterrupts(context.pool, context.agentId, claim.runId);
  const state: ReplyState = claim.replyState ?? { posted: [] };
  for (let index = state.asked ?? 0; index < raised.length; index++) {
    const { id, tool_name: toolName, interrupt } = raised[index] as (typeof raised)[number];
    const request = {
      interruptId: id,
      toolName: toolName ?? '',
      prompt: interrupt.message ?? '',
      requester: claim.sender,
    };
    await askApproval(item.address, request, context.signal);
    const next = { ...state, asked: index + 1 };
    keepLease(await saveReplyState(context.pool, claim, next), `recording approval ${index + 1} of ${raised.length}`);
    claim.replyState = next;
  }
}

function failureOutcome(context: ClaimContext, claim: ClaimedMessage, error: unknown): ClaimOutcome {
  if (error instanceof LeaseLostError) return { kind: 'lease_lost', during: error.during };
  if (error instanceof SkipError) return { kind: 'skipped', reason: error.message };
  if (context.signal.aborted) return { kind: 'released' };
  const api = error instanceof ChannelApiError ? error : undefined;
  const retryable = api?.retryable ?? error instanceof RetryableError;
  const reason = api
    ? `${api.message}${api.providerCode === undefined ? '' : ` (code ${api.providerCode})`}`
    : error instanceof Error
      ? error.message
      : String(error);
  const details = api && { api: { api_status: api.status, api_code: api.providerCode } };
  if (!retryable || claim.attempts >= context.settings.maxAttempts) {
    return { kind: 'failed', reason, ...details };
  }
  // The provider's Retry-After is a floor: coming back sooner only earns another 429.
  const backoff = retryDelayMs(claim.attempts, context.settings.retryBaseMs);
  const delayMs = Math.min(Math.max(backoff, api?.retryAfterMs ?? 0), MAX_RETRY_DELAY_MS);
  return { kind: 'retry', delayMs, reason, ...details };
}

/** Answers `claim` with the config of `snapshot`; every failure, the database's too, becomes an outcome. */
export async function processClaim(
  context: ClaimContext,
  claim: ClaimedMessage,
  snapshot: AgentSnapshot,
): Promise<ClaimOutcome> {
  const adapter = context.adapters.byProvider(claim.provider);
  const integration = snapshot.config.integrations.find(
    (candidate) => candidate.id === claim.integrationId && candidate.provider === claim.provider && candidate.enabled,
  );
  if (adapter === undefined || integration === undefined) {
    const name = providerName(claim.provider);
    return { kind: 'skipped', reason: `the ${name} integration is disabled or no longer configured` };
  }
  try {
    const item = inboundItemOf(claim);
    // The integration matches the adapter's provider: both were found by the claim's provider.
    const outbound = adapter.outbound(integration as never);
    const produced = await produceReply(context, claim, { snapshot, outbound, item });
    // The provider told the stream to wait: the stored reply goes out on a later attempt, not sooner.
    if (produced.streamed?.wait !== undefined) throw produced.streamed.wait;
    const reply = { ...produced, outbound, item, claim };
    await deliver(context, reply);
    await askApprovals(context, claim, reply);
    return { kind: 'done' };
  } catch (error) {
    return failureOutcome(context, claim, error);
  }
}
