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
export async function enqueueWebhookEvent(tx: Tx, event: WebhookEvent): Promise<number> {
  const [row] = await tx.$queryRaw<{ queued: number }[]>`
    SELECT webhook_enqueue(${event.workspaceId}::uuid, ${event.type}, ${JSON.stringify(event.data)}::jsonb,
      ${event.content === undefined ? null : JSON.stringify(event.content)}::jsonb) AS queued`;
  return row?.queued ?? 0;
}
