// Answers one claimed channel message and says how it went: run the agent on the conversation's thread
// (streaming the reply as edits where the provider edits), store the reply with the new turn, send it
// in parts. The reply is stored before it is sent, so a retry after a provider failure sends it again
// without running the agent again, and starts at the first part not yet delivered. Each progress write
// is made under the claim's lease; the first one that finds the lease lost ends the work before
// anything more is sent.
import { randomUUID } from 'node:crypto';
import type { Message, RunAgentInput } from '@ag-ui/core';
import { BUDGET_EXCEEDED_CODE, GUARDRAIL_BLOCKED_CODE, type TEngineBudgets } from '@agentplane/contracts';
import type { Logger } from '@agentplane/server-kit';
import type { AgentDb } from '../database/agent-db.js';
import type { ChannelWorkerSettings } from '../env.js';
import { meterRun } from '../runs/metered-run.js';
import { type RecordedRun, type RunStore, startRecordedRun, unrecordedRun } from '../runs/recorded-run.js';
import type { ChannelRunSource } from '../runs/run-records.js';
import { type CompletedRun, runToCompletion } from '../runs/run-to-completion.js';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';
import { scopedThreadId } from '../threads/thread-scope.js';
import { appendThreadMessages, loadThreadMessages, withTransaction } from '../threads/thread-store.js';
import { ChannelApiError, type ChannelOutbound, type InboundItem } from './channel-adapter.js';
import type { ChannelAdapters } from './channel-adapters.js';
import type { ClaimOutcome } from './claim-outcome.js';
import { type ClaimedMessage, savePartsSent, saveReply, saveReplyState, saveRunId } from './inbound-queue.js';
import { providerName } from './provider-names.js';
import { inboundItemOf } from './queued-item.js';
import { startReplyStream } from './reply-stream.js';
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

type Reply = { text: string; outbound: ChannelOutbound; item: InboundItem; claim: ClaimedMessage };

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
async function recordRun(context: ClaimContext, claim: ClaimedMessage, input: RunAgentInput): Promise<RecordedRun> {
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

/** Runs the agent on the conversation's thread and stores its answer with the turn, in one transaction. */
async function answer(
  context: ClaimContext,
  claim: ClaimedMessage,
  snapshot: AgentSnapshot,
  outbound: ChannelOutbound,
  item: InboundItem & { kind: 'message' },
  text: string,
): Promise<string> {
  const { pool, agentId, signal, log } = context;
  const key = threadKeyOf(agentId, claim.provider, claim.integrationId, claim.conversation);
  const history = await loadThreadMessages(pool, agentId, key);
  const userMessage: Message = { id: claim.providerMessageId, role: 'user', content: text };
  const input: RunAgentInput = {
    threadId: key,
    runId: randomUUID(),
    messages: [...history, userMessage],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  };
  keepLease(await saveRunId(pool, claim, input.runId), 'naming the run');
  const recorded = await recordRun(context, claim, input);
  const stream = streamOf(context, claim, outbound, item);
  let run: CompletedRun;
  try {
    run = await runToCompletion(snapshot, input, {
      signal,
      logger: log,
      recorded,
      interrupts: context.runs?.metrics.interrupts,
      ...(stream === undefined ? {} : { onText: stream.update }),
    });
  } finally {
    await stream?.settle();
  }
  const refusal = refusalOf(run, snapshot, context.settings);
  if (refusal !== undefined) {
    keepLease(await saveReply(pool, claim, refusal), 'storing the reply');
    return refusal;
  }
  if (!run.finished) {
    throw new RetryableError(`the agent run failed (${run.code}): ${run.message}`);
  }
  // The message as the agent was given it: redacted where an input guardrail said so.
  const asGiven = run.input.messages.find((message) => message.id === userMessage.id) ?? userMessage;
  // A lost lease rolls the turn back too: the new holder stores its own.
  await withTransaction(pool, async (client) => {
    await appendThreadMessages(client, agentId, key, [asGiven, ...run.messages]);
    keepLease(await saveReply(client, claim, run.text), 'storing the reply');
  });
  return run.text;
}

async function produceReply(
  context: ClaimContext,
  claim: ClaimedMessage,
  snapshot: AgentSnapshot,
  outbound: ChannelOutbound,
  item: InboundItem & { kind: 'message' },
): Promise<string> {
  if (claim.replyText !== null) return claim.replyText;
  if (item.text !== undefined) return answer(context, claim, snapshot, outbound, item, item.text);
  const reply = context.settings.unsupportedMessageReply;
  keepLease(await saveReply(context.pool, claim, reply), 'storing the reply');
  return reply;
}

/**
 * Sends the reply formatted, in parts of the provider's length, from the first part not yet sent. A
 * message the stream posted becomes the first part, edited to its final text.
 */
async function deliver(context: ClaimContext, { text, outbound, item, claim }: Reply): Promise<void> {
  const { signal, pool } = context;
  const parts = splitText(outbound.format(text), outbound.maxLength);
  const streamed = claim.replyState?.posted[0];
  for (let index = claim.replyPartsSent; index < parts.length; index++) {
    const part = String(parts[index]);
    if (index === 0 && streamed !== undefined && outbound.edit !== undefined) {
      await outbound.edit(item.address, streamed, part, signal);
    } else {
      await outbound.post(item.address, part, signal);
    }
    // Sent but not recorded when the lease is gone: the new holder sends this part again (the window
    // docs/pages/channels/whatsapp.md describes). Sending the next one too would make it two parts twice.
    keepLease(await savePartsSent(pool, claim, index + 1), `recording part ${index + 1} of ${parts.length}`);
  }
}

function failureOutcome(context: ClaimContext, claim: ClaimedMessage, error: unknown): ClaimOutcome {
  if (error instanceof LeaseLostError) return { kind: 'lease_lost', during: error.during };
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
    if (item.kind === 'approval') {
      return { kind: 'skipped', reason: 'an approval press with no run waiting for it' };
    }
    const text = await produceReply(context, claim, snapshot, outbound, item);
    await deliver(context, { text, outbound, item, claim });
    return { kind: 'done' };
  } catch (error) {
    return failureOutcome(context, claim, error);
  }
}
