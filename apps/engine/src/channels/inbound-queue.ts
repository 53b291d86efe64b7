// The durable queue of inbound channel messages (table inbound_messages), one for every provider. A
// webhook stores each item once (unique on the agent, the integration and the provider's id); workers
// claim due rows with FOR UPDATE SKIP LOCKED, so two replicas never hold the same one, and answer one
// conversation's messages in order. A claim is a lease: a worker that dies leaves a row whose lease
// runs out and which is claimed again. Every later write names the lease it holds (`locked_until`), so
// a worker whose lease was taken over cannot overwrite the new holder's progress.
import type { Queryable } from '../threads/thread-store.js';

export type QueuedKind = 'message' | 'approval';

export type NewInboundMessage = {
  integrationId: string;
  /** The integration's provider ('WHATSAPP', 'SLACK', …). */
  provider: string;
  providerMessageId: string;
  /** The provider's conversation or thread: its messages are answered one at a time, in order. */
  conversation: string;
  sender: string;
  kind: QueuedKind;
  payload: unknown;
};

/**
 * What a reply left on the provider: the message a stream posted (edited rather than posted again),
 * and how many of its run's approval messages were posted.
 */
export type ReplyState = { posted: string[]; asked?: number };

export type ClaimedMessage = Omit<NewInboundMessage, 'payload'> & {
  id: string;
  payload: Record<string, unknown>;
  attempts: number;
  replyText: string | null;
  replyPartsSent: number;
  replyState: ReplyState | null;
  runId: string | null;
  /** The lease this claim holds, passed back with every write. */
  lease: string;
};

const ENQUEUE = `
  INSERT INTO inbound_messages
    (agent_id, integration_id, provider, provider_message_id, conversation, sender, kind, payload)
  SELECT $1, t.integration_id, t.provider, t.provider_message_id, t.conversation, t.sender, t.kind, t.payload
  FROM jsonb_to_recordset($2::jsonb) AS t(integration_id uuid, provider text, provider_message_id text,
    conversation text, sender text, kind text, payload jsonb)
  ON CONFLICT (agent_id, integration_id, provider_message_id) DO NOTHING`;

// Due: pending and past its backoff, or processing under a lease that ran out (its worker died). A
// conversation whose earlier message is still being answered waits, so its turns stay in order. Rows
// written without a conversation (WhatsApp's, before channels) are in their sender's.
const CLAIM = `
  UPDATE inbound_messages SET status = 'processing', attempts = attempts + 1,
    locked_until = now() + $2::int * interval '1 millisecond', updated_at = now()
  WHERE id = (
    SELECT m.id FROM inbound_messages m
    WHERE m.agent_id = $1
      AND ((m.status = 'pending' AND m.next_attempt_at <= now())
        OR (m.status = 'processing' AND m.locked_until < now()))
      AND NOT EXISTS (
        SELECT 1 FROM inbound_messages o
        WHERE o.agent_id = m.agent_id AND o.integration_id = m.integration_id
          AND coalesce(o.conversation, o.sender) = coalesce(m.conversation, m.sender) AND o.id <> m.id
          AND o.status = 'processing' AND o.locked_until >= now())
    ORDER BY m.next_attempt_at, m.created_at
    FOR UPDATE SKIP LOCKED
    LIMIT 1)
  RETURNING id, integration_id, provider, provider_message_id, coalesce(conversation, sender) AS conversation,
    sender, kind, payload, attempts, reply_text, reply_parts_sent, reply_state, run_id,
    locked_until::text AS lease`;

type ClaimRow = {
  id: string;
  integration_id: string;
  provider: string;
  provider_message_id: string;
  conversation: string;
  sender: string;
  kind: QueuedKind;
  payload: Record<string, unknown>;
  attempts: number;
  reply_text: string | null;
  reply_parts_sent: number;
  reply_state: ReplyState | null;
  run_id: string | null;
  lease: string;
};

const HELD = `id = $1 AND status = 'processing' AND locked_until = $2::timestamptz`;

/** Stores the messages not stored before; returns how many were new. */
export async function enqueueInboundMessages(
  db: Queryable,
  agentId: string,
  messages: NewInboundMessage[],
): Promise<number> {
  if (messages.length === 0) return 0;
  const rows = messages.map((message) => ({
    integration_id: message.integrationId,
    provider: message.provider,
    provider_message_id: message.providerMessageId,
    conversation: message.conversation,
    sender: message.sender,
    kind: message.kind,
    payload: message.payload,
  }));
  const result = await db.query(ENQUEUE, [agentId, JSON.stringify(rows)]);
  return result.rowCount ?? 0;
}

export async function claimInboundMessage(
  db: Queryable,
  agentId: string,
  leaseMs: number,
): Promise<ClaimedMessage | undefined> {
  const {
    rows: [row],
  } = await db.query<ClaimRow>(CLAIM, [agentId, leaseMs]);
  if (row === undefined) return undefined;
  return {
    id: row.id,
    integrationId: row.integration_id,
    provider: row.provider,
    providerMessageId: row.provider_message_id,
    conversation: row.conversation,
    sender: row.sender,
    kind: row.kind,
    payload: row.payload,
    attempts: row.attempts,
    replyText: row.reply_text,
    replyPartsSent: row.reply_parts_sent,
    replyState: row.reply_state,
    runId: row.run_id,
    lease: row.lease,
  };
}

/** Writes `update` (a SET list using $3…) while the lease is still held; false when it was lost. */
async function updateHeld(
  db: Queryable,
  claim: ClaimedMessage,
  update: string,
  values: unknown[] = [],
): Promise<boolean> {
  const result = await db.query(`UPDATE inbound_messages SET ${update}, updated_at = now() WHERE ${HELD}`, [
    claim.id,
    claim.lease,
    ...values,
  ]);
  return result.rowCount === 1;
}

export const saveReply = (db: Queryable, claim: ClaimedMessage, text: string) =>
  updateHeld(db, claim, 'reply_text = $3', [text]);

export const savePartsSent = (db: Queryable, claim: ClaimedMessage, parts: number) =>
  updateHeld(db, claim, 'reply_parts_sent = $3', [parts]);

export const saveReplyState = (db: Queryable, claim: ClaimedMessage, state: ReplyState) =>
  updateHeld(db, claim, 'reply_state = $3::jsonb', [JSON.stringify(state)]);

/** Names the run this message started, before it starts: an approval press is matched to its sender. */
export const saveRunId = (db: Queryable, claim: ClaimedMessage, runId: string) =>
  updateHeld(db, claim, 'run_id = $3::uuid', [runId]);

export const markDone = (db: Queryable, claim: ClaimedMessage) =>
  updateHeld(db, claim, `status = 'done', locked_until = NULL, last_error = NULL`);

export const markFailed = (db: Queryable, claim: ClaimedMessage, error: string) =>
  updateHeld(db, claim, `status = 'failed', locked_until = NULL, last_error = $3`, [error]);

export const markSkipped = (db: Queryable, claim: ClaimedMessage, reason: string) =>
  updateHeld(db, claim, `status = 'skipped', locked_until = NULL, last_error = $3`, [reason]);

export const scheduleRetry = (db: Queryable, claim: ClaimedMessage, delayMs: number, error: string) =>
  updateHeld(
    db,
    claim,
    `status = 'pending', locked_until = NULL, last_error = $4,
     next_attempt_at = now() + $3::int * interval '1 millisecond'`,
    [Math.round(delayMs), error],
  );

/** Gives the message back untouched (the engine is stopping): the attempt does not count. */
export const releaseClaim = (db: Queryable, claim: ClaimedMessage) =>
  updateHeld(db, claim, `status = 'pending', locked_until = NULL, attempts = greatest(attempts - 1, 0)`);
