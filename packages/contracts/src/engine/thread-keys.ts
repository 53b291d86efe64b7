// How an engine keys a conversation thread: by the agent, the caller's token issuer and subject, and
// the client's threadId. Shared because the manager queues runs too (schedules): a run it queues as a
// user must land in the thread that user's own runs with that threadId use.

/** Who a thread belongs to: a token's issuer and subject. */
export type ThreadOwner = { issuer: string; subject: string };

/** Every part is encoded, so no choice of ids makes two different scopes produce one key. */
export function scopedThreadId(agentId: string, owner: ThreadOwner | undefined, threadId: string): string {
  const parts = owner === undefined ? [agentId, threadId] : [agentId, owner.issuer, owner.subject, threadId];
  return parts.map(encodeURIComponent).join(':');
}

/** The key of an AG-UI thread (runs over /agent/run, /agent/runs, A2A and schedules). */
export function aguiThreadKey(agentId: string, owner: ThreadOwner | undefined, threadId: string): string {
  return `agui:${scopedThreadId(agentId, owner, threadId)}`;
}
