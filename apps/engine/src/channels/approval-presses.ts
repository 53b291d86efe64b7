// Who may answer a channel run's tool approval: the sender of the message whose run asked. An
// interrupt is looked for in the conversation's own thread only, so a press naming another
// conversation's interrupt (or another agent's) finds nothing.
import type { Queryable } from '../threads/thread-store.js';

const STARTER = `
  SELECT m.sender FROM thread_interrupts i
    JOIN conversation_threads t ON t.id = i.thread_id AND t.agent_id = i.agent_id
    JOIN inbound_messages m ON m.agent_id = i.agent_id AND m.run_id::text = i.run_id
  WHERE i.agent_id = $1 AND t.external_key = $2 AND i.id = $3 AND m.integration_id = $4
  LIMIT 1`;

/** The sender whose message started the run that raised `interruptId`; undefined when none is known. */
export async function starterOf(
  db: Queryable,
  agentId: string,
  threadKey: string,
  integrationId: string,
  interruptId: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ sender: string }>(STARTER, [agentId, threadKey, interruptId, integrationId]);
  return rows[0]?.sender;
}
