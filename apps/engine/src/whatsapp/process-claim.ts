// Answers one claimed WhatsApp message and says how it went: run the agent on the sender's thread,
// store the reply with the new turn, send it in parts. The reply is stored before it is sent, so a
// retry after a Graph failure sends it again without running the agent again, and starts at the first
// part not yet delivered. Each progress write is made under the claim's lease; the first one that
// finds the lease lost ends the work before another part is sent.
import { randomUUID } from 'node:crypto';
import type { Message, RunAgentInput } from '@ag-ui/core';
import { BUDGET_EXCEEDED_CODE, GUARDRAIL_BLOCKED_CODE, type TEngineBudgets } from '@agentplane/contracts';
import type { Logger } from '@agentplane/server-kit';
import type { AgentDb } from '../database/agent-db.js';
import type { WhatsAppSettings } from '../env.js';
import { meterRun } from '../runs/metered-run.js';
import { type RecordedRun, type RunStore, startRecordedRun, unrecordedRun } from '../runs/recorded-run.js';
import { type CompletedRun, runToCompletion } from '../runs/run-to-completion.js';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';
import { scopedThreadId } from '../threads/thread-scope.js';
import { appendThreadMessages, loadThreadMessages, withTransaction } from '../threads/thread-store.js';
import type { ClaimOutcome } from './claim-outcome.js';
import { GraphError, sendWhatsAppText } from './graph-client.js';
import { type ClaimedMessage, savePartsSent, saveReply } from './inbound-queue.js';
import { splitText } from './split-text.js';
import { isWhatsApp, type WhatsAppIntegration } from './whatsapp-integration.js';

export type ClaimContext = {
  pool: AgentDb;
  agentId: string;
  settings: WhatsAppSettings;
  /** Where the reply's run is recorded (agent_runs, source whatsapp); not recorded without it. */
  runs?: RunStore;
  /** Aborted when the engine stops: the message in hand is given back. */
  signal: AbortSignal;
  log: Logger;
};

const MAX_RETRY_DELAY_MS = 3_600_000;

/** One thread per sender, scoped by the agent and the integration (the number) the sender wrote to. */
export const threadKeyOf = (agentId: string, integrationId: string, sender: string) =>
  `whatsapp:${scopedThreadId(agentId, { issuer: integrationId, subject: sender }, '')}`;

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

function findIntegration(snapshot: AgentSnapshot, id: string): WhatsAppIntegration | undefined {
  return snapshot.config.integrations.find(
    (integration): integration is WhatsAppIntegration =>
      integration.id === id && isWhatsApp(integration) && integration.enabled,
  );
}

function readText(payload: Record<string, unknown>): string | undefined {
  if (payload.type !== 'text') return undefined;
  const body = (payload.text as { body?: unknown } | undefined)?.body;
  return typeof body === 'string' && body.trim() !== '' ? body : undefined;
}

/** The agent's budget's reply, else the workspace's, else the operator's default. */
function budgetReplyOf(budgets: TEngineBudgets, fallback: string): string {
  return budgets.agent?.whatsapp_reply ?? budgets.workspace?.whatsapp_reply ?? fallback;
}

/**
 * The fixed reply to a run that could not answer and would not answer on a retry either: a spent
 * budget (the agent did not run), or a guardrail that blocked the message or the answer. The thread
 * keeps nothing of such a turn.
 */
function refusalOf(run: CompletedRun, snapshot: AgentSnapshot, settings: WhatsAppSettings): string | undefined {
  if (run.finished) return undefined;
  if (run.code === BUDGET_EXCEEDED_CODE) return budgetReplyOf(snapshot.config.budgets, settings.budgetExceededReply);
  if (run.code === GUARDRAIL_BLOCKED_CODE) return settings.guardrailBlockedReply;
  return undefined;
}

/** The reply's run record; the queue answers a sender's messages one at a time, so the thread is ours. */
async function recordRun(context: ClaimContext, input: RunAgentInput): Promise<RecordedRun> {
  if (context.runs === undefined) return unrecordedRun(input.runId);
  const recorded = await startRecordedRun(
    context.runs,
    {
      runId: input.runId,
      threadId: input.threadId,
      threadKey: input.threadId,
      caller: undefined,
      source: 'whatsapp',
      supersede: true,
    },
    context.log,
  );
  if (typeof recorded === 'string') throw new RetryableError(`the run could not be recorded (${recorded})`);
  return meterRun(recorded, context.runs.metrics.runs, 'whatsapp');
}

/** Runs the agent on the sender's thread and stores its answer with the turn, in one transaction. */
async function answer(
  context: ClaimContext,
  claim: ClaimedMessage,
  snapshot: AgentSnapshot,
  text: string,
): Promise<string> {
  const { pool, agentId, signal, log } = context;
  const key = threadKeyOf(agentId, claim.integrationId, claim.sender);
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
  const recorded = await recordRun(context, input);
  const run = await runToCompletion(snapshot, input, signal, log, recorded, context.runs?.metrics.interrupts);
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

async function produceReply(context: ClaimContext, claim: ClaimedMessage, snapshot: AgentSnapshot): Promise<string> {
  if (claim.replyText !== null) return claim.replyText;
  const text = readText(claim.payload);
  if (text !== undefined) return answer(context, claim, snapshot, text);
  const reply = context.settings.unsupportedMessageReply;
  keepLease(await saveReply(context.pool, claim, reply), 'storing the reply');
  return reply;
}

async function deliver(
  context: ClaimContext,
  claim: ClaimedMessage,
  integration: WhatsAppIntegration,
  reply: string,
): Promise<void> {
  const { config } = integration;
  const { settings, signal, pool } = context;
  const target = {
    baseUrl: settings.graphApiBaseUrl,
    apiVersion: config.apiVersion,
    phoneNumberId: config.phoneNumberId,
    accessToken: config.accessToken,
    timeoutMs: settings.graphApiTimeoutMs,
  };
  const parts = splitText(reply);
  for (let index = claim.replyPartsSent; index < parts.length; index++) {
    await sendWhatsAppText(target, claim.sender, String(parts[index]), signal);
    // Sent but not recorded when the lease is gone: the new holder sends this part again (the window
    // docs/pages/channels/whatsapp.md describes). Sending the next one too would make it two parts twice.
    keepLease(await savePartsSent(pool, claim, index + 1), `recording part ${index + 1} of ${parts.length}`);
  }
}

function failureOutcome(context: ClaimContext, claim: ClaimedMessage, error: unknown): ClaimOutcome {
  if (error instanceof LeaseLostError) return { kind: 'lease_lost', during: error.during };
  if (context.signal.aborted) return { kind: 'released' };
  const graph = error instanceof GraphError ? error : undefined;
  const retryable = graph?.retryable ?? error instanceof RetryableError;
  const reason = graph
    ? `Graph API ${graph.message}${graph.graphCode === undefined ? '' : ` (code ${graph.graphCode})`}`
    : error instanceof Error
      ? error.message
      : String(error);
  const details = graph && { graph_status: graph.status, graph_code: graph.graphCode };
  if (!retryable || claim.attempts >= context.settings.maxAttempts) {
    return { kind: 'failed', reason, ...(details && { graph: details }) };
  }
  // Graph's Retry-After is a floor: coming back sooner only earns another 429.
  const backoff = retryDelayMs(claim.attempts, context.settings.retryBaseMs);
  const delayMs = Math.min(Math.max(backoff, graph?.retryAfterMs ?? 0), MAX_RETRY_DELAY_MS);
  return { kind: 'retry', delayMs, reason, ...(details && { graph: details }) };
}

/** Answers `claim` with the config of `snapshot`; every failure, the database's too, becomes an outcome. */
export async function processClaim(
  context: ClaimContext,
  claim: ClaimedMessage,
  snapshot: AgentSnapshot,
): Promise<ClaimOutcome> {
  const integration = findIntegration(snapshot, claim.integrationId);
  if (integration === undefined) {
    return { kind: 'skipped', reason: 'the WhatsApp integration is disabled or no longer configured' };
  }
  try {
    await deliver(context, claim, integration, await produceReply(context, claim, snapshot));
    return { kind: 'done' };
  } catch (error) {
    return failureOutcome(context, claim, error);
  }
}
