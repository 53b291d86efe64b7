// Events the manager itself produces (agent.version.created, a test event), through the same SQL
// function the run and interrupt triggers use: one delivery per subscribed endpoint, in the caller's
// transaction, so an event is queued exactly when the change that causes it commits.
import type { TWebhookEventType } from '@agentplane/contracts';
import type { Tx } from '@agentplane/db';

export type WebhookEvent = {
  workspaceId: string;
  type: TWebhookEventType;
  /** Ids and status: what every subscriber receives. */
  data: Record<string, unknown>;
  /** Conversation content, merged into data only for endpoints that opted in. */
  content?: Record<string, unknown>;
};

/** Queues `event` for every enabled endpoint of its workspace subscribed to its type; says how many. */
export function enqueueWebhookEvent(tx: Tx, event: WebhookEvent): Promise<number> {
  return enqueueWebhookEvents(tx, [event]);
}

/** Queues each of `events` as enqueueWebhookEvent does, in one statement however many there are. */
export async function enqueueWebhookEvents(tx: Tx, events: WebhookEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const [row] = await tx.$queryRaw<{ queued: number }[]>`
    SELECT coalesce(sum(webhook_enqueue(e.workspace_id, e.type, e.data, e.content)), 0)::int AS queued
    FROM unnest(${events.map((event) => event.workspaceId)}::uuid[], ${events.map((event) => event.type)}::text[],
                ${events.map((event) => JSON.stringify(event.data))}::jsonb[],
                ${events.map((event) => (event.content === undefined ? null : JSON.stringify(event.content)))}::jsonb[])
      AS e(workspace_id, type, data, content)`;
  return row?.queued ?? 0;
}
