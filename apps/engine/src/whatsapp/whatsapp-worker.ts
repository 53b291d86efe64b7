// Answers queued WhatsApp messages, one at a time per engine: claim a due message, run the agent on
// the sender's thread, store the reply with the new turn, send it in parts, mark the message done.
// The reply is stored before it is sent, so a retry after a Graph failure sends it again without
// running the agent again, and starts at the first part not yet delivered.
import { randomUUID } from 'node:crypto';
import type { Message, RunAgentInput } from '@ag-ui/core';
import type { TEngineIntegration } from '@agentplane/contracts';
import type { Logger } from '@agentplane/server-kit';
import type pg from 'pg';
import type { WhatsAppSettings } from '../env.js';
import { runToCompletion } from '../runs/run-to-completion.js';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';
import type { SnapshotSource } from '../snapshot/use-snapshot.js';
import { scopedThreadId } from '../threads/thread-scope.js';
import { appendThreadMessages, loadThreadMessages, withTransaction } from '../threads/thread-store.js';
import { GraphError, sendWhatsAppText } from './graph-client.js';
import {
  type ClaimedMessage,
  claimInboundMessage,
  markDone,
  markFailed,
  markSkipped,
  releaseClaim,
  savePartsSent,
  saveReply,
  scheduleRetry,
} from './inbound-queue.js';
import { splitText } from './split-text.js';

export type WhatsAppWorker = {
  /** Looks for due messages now instead of at the next poll. */
  wake: () => void;
  /** Stops claiming, aborts the message in hand and gives it back to the queue. */
  stop: () => Promise<void>;
};

export type WhatsAppWorkerOptions = {
  pool: pg.Pool;
  source: SnapshotSource;
  agentId: string;
  settings: WhatsAppSettings;
  logger: Logger;
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

/** A failure worth another attempt (the model or Graph had a bad moment). */
class RetryableError extends Error {}

function findIntegration(snapshot: AgentSnapshot, id: string): TEngineIntegration | undefined {
  return snapshot.config.integrations.find(
    (integration) => integration.id === id && integration.provider === 'WHATSAPP' && integration.enabled,
  );
}

function readText(payload: Record<string, unknown>): string | undefined {
  if (payload.type !== 'text') return undefined;
  const body = (payload.text as { body?: unknown } | undefined)?.body;
  return typeof body === 'string' && body.trim() !== '' ? body : undefined;
}

export function startWhatsAppWorker({
  pool,
  source,
  agentId,
  settings,
  logger,
}: WhatsAppWorkerOptions): WhatsAppWorker {
  const log = logger.child({ component: 'whatsapp-worker' });
  const stopping = new AbortController();
  // A wake while the worker is busy makes its next sleep return at once.
  let wokenEarly = false;
  let interruptSleep: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (wokenEarly || stopping.signal.aborted) {
        wokenEarly = false;
        resolve();
        return;
      }
      const finish = () => {
        clearTimeout(timer);
        interruptSleep = undefined;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      interruptSleep = finish;
    });
  const wake = () => {
    if (interruptSleep === undefined) wokenEarly = true;
    else interruptSleep();
  };

  /** Runs the agent on the sender's thread and stores its answer with the turn, in one transaction. */
  const answer = async (claim: ClaimedMessage, snapshot: AgentSnapshot, text: string): Promise<string> => {
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
    const run = await runToCompletion(snapshot, input, stopping.signal, log);
    if (!run.finished) {
      throw new RetryableError(`the agent run failed (${run.code}): ${run.message}`);
    }
    await withTransaction(pool, async (client) => {
      await appendThreadMessages(client, agentId, key, [userMessage, ...run.messages]);
      if (!(await saveReply(client, claim, run.text))) throw new Error('the claim was lost');
    });
    return run.text;
  };

  const deliver = async (claim: ClaimedMessage, integration: TEngineIntegration, reply: string) => {
    const { config } = integration;
    const target = {
      baseUrl: settings.graphApiBaseUrl,
      apiVersion: config.apiVersion,
      phoneNumberId: config.phoneNumberId,
      accessToken: config.accessToken,
      timeoutMs: settings.graphApiTimeoutMs,
    };
    const parts = splitText(reply);
    for (let index = claim.replyPartsSent; index < parts.length; index++) {
      await sendWhatsAppText(target, claim.sender, String(parts[index]), stopping.signal);
      await savePartsSent(pool, claim, index + 1);
    }
  };

  const handle = async (claim: ClaimedMessage, snapshot: AgentSnapshot) => {
    const messageLog = log.child({ message_id: claim.id, attempt: claim.attempts });
    const integration = findIntegration(snapshot, claim.integrationId);
    if (integration === undefined) {
      await markSkipped(pool, claim, 'the WhatsApp integration is disabled or no longer configured');
      messageLog.warn('message skipped: its WhatsApp integration is disabled or gone');
      return;
    }
    try {
      const text = readText(claim.payload);
      const reply =
        claim.replyText ??
        (text === undefined ? settings.unsupportedMessageReply : await answer(claim, snapshot, text));
      if (text === undefined && claim.replyText === null) await saveReply(pool, claim, reply);
      await deliver(claim, integration, reply);
      await markDone(pool, claim);
      messageLog.info('WhatsApp message answered');
    } catch (error) {
      if (stopping.signal.aborted) {
        await releaseClaim(pool, claim).catch(() => undefined);
        return;
      }
      const graph = error instanceof GraphError ? error : undefined;
      const retryable = graph?.retryable ?? error instanceof RetryableError;
      const reason = graph
        ? `Graph API ${graph.message}${graph.graphCode === undefined ? '' : ` (code ${graph.graphCode})`}`
        : error instanceof Error
          ? error.message
          : String(error);
      const details = { err_message: reason, graph_status: graph?.status, graph_code: graph?.graphCode };
      if (retryable && claim.attempts < settings.maxAttempts) {
        const delay = retryDelayMs(claim.attempts, settings.retryBaseMs);
        await scheduleRetry(pool, claim, delay, reason);
        messageLog.warn({ ...details, retry_in_ms: Math.round(delay) }, 'WhatsApp message will be retried');
      } else {
        await markFailed(pool, claim, reason);
        messageLog.error(details, 'WhatsApp message failed');
      }
    }
  };

  const loop = async () => {
    while (!stopping.signal.aborted) {
      if (source.current() === undefined) {
        await sleep(settings.pollMs);
        continue;
      }
      let claim: ClaimedMessage | undefined;
      try {
        claim = await claimInboundMessage(pool, agentId, settings.leaseMs);
      } catch (error) {
        log.warn({ err: error }, 'could not claim a WhatsApp message');
      }
      // The config is taken after the claim, never before: a message that came in after a new config
      // was applied (a rotated access token, say) must be answered with that config.
      const snapshot = source.current();
      // A failed release only delays the message until its lease runs out.
      if (claim !== undefined && snapshot === undefined) await releaseClaim(pool, claim).catch(() => undefined);
      if (claim === undefined || snapshot === undefined) {
        await sleep(settings.pollMs);
        continue;
      }
      const release = snapshot.lease();
      try {
        await handle(claim, snapshot);
      } catch (error) {
        // The database failed while recording the outcome: the lease runs out and the message comes back.
        log.error({ err: error, message_id: claim.id }, 'could not record a WhatsApp message outcome');
      } finally {
        release();
      }
    }
  };
  const running = loop();

  return {
    wake,
    stop: async () => {
      stopping.abort();
      wake();
      await running;
    },
  };
}
