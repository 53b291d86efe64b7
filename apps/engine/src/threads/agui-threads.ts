// The thread rule of /agent/run (database mode). A run whose messages carry no history (no assistant
// or tool message, typically just the new user message) continues its stored thread: the stored
// messages go first. Every finished run stores the messages the thread does not have yet (by AG-UI
// message id), so clients that send their full history keep working and nothing is stored twice.
// Threads belong to the caller: the key includes the agent and the token's issuer and subject
// (thread-scope.ts), so a threadId alone never reads someone else's conversation.
import type { Message, RunAgentInput } from '@ag-ui/core';
import { aguiThreadKey } from '@agentplane/contracts';
import type { AgentDb } from '../database/agent-db.js';
import type { ThreadCaller } from './thread-scope.js';
import { appendThreadMessages, loadThreadMessages, type Queryable } from './thread-store.js';

export type AguiThread = {
  key: string;
  input: RunAgentInput;
  storedIds: Set<string>;
  caller: ThreadCaller | undefined;
};

export { aguiThreadKey };

const carriesHistory = (messages: Message[]) =>
  messages.some((message) => message.role === 'assistant' || message.role === 'tool');

export async function continueAguiThread(
  pool: AgentDb,
  agentId: string,
  input: RunAgentInput,
  caller: ThreadCaller | undefined,
): Promise<AguiThread> {
  const key = aguiThreadKey(agentId, caller, input.threadId);
  const stored = await loadThreadMessages(pool, agentId, key);
  const storedIds = new Set(stored.map((message) => message.id));
  if (stored.length === 0 || carriesHistory(input.messages)) return { key, input, storedIds, caller };
  const fresh = input.messages.filter((message) => !storedIds.has(message.id));
  return { key, input: { ...input, messages: [...stored, ...fresh] }, storedIds, caller };
}

/** Stores what the thread lacks, with its owner (for GET /agent/threads) and the state the run left (see thread-state.ts). */
export async function storeAguiRun(
  db: Queryable,
  agentId: string,
  thread: AguiThread,
  run: { produced: Message[]; state: unknown },
): Promise<void> {
  const added = [...thread.input.messages, ...run.produced].filter((message) => !thread.storedIds.has(message.id));
  await appendThreadMessages(db, agentId, thread.key, added, {
    threadId: thread.input.threadId,
    issuer: thread.caller?.issuer ?? null,
    subject: thread.caller?.subject ?? null,
    state: run.state,
  });
}
