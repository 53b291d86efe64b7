// LangGraph threads per caller, on the runtime itself: the same AG-UI threadId under two token subjects,
// or under one subject of two issuers, is two conversations.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { type BaseEvent, EventType } from '@ag-ui/core';
import { createLogger } from '@agentplane/server-kit';
import { makeRunAgentInput } from '@agentplane/testing';
import { describe, expect, it } from '@jest/globals';
import type { ThreadCaller } from '../../threads/thread-scope.js';
import type { AgentRuntime } from '../agent-runtime.js';
import { loadLangGraphAgent } from './langgraph-agent.js';

const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));
const NO_TOOLS = { tools: [], call: async () => ({ text: 'no tools', isError: true }) };

async function reply(runtime: AgentRuntime, threadId: string, content: string, caller?: ThreadCaller) {
  const input = makeRunAgentInput(content, { threadId });
  const events: BaseEvent[] = [];
  const request = { input, signal: new AbortController().signal, toolbox: NO_TOOLS, caller };
  for await (const event of runtime.run(request)) events.push(event);
  return events
    .filter((event) => event.type === EventType.TEXT_MESSAGE_CONTENT)
    .map((event) => event.delta)
    .join('');
}

describe('LangGraph threads', () => {
  it('keeps the conversations of two callers apart even when they use the same threadId', async () => {
    const runtime = await loadLangGraphAgent({
      agentId: randomUUID(),
      reference: 'memory-graph.js:builder',
      agentsDir: FIXTURES,
      version: 1,
      toolbox: NO_TOOLS,
      db: undefined,
      logger: createLogger({ name: 'graph-threads-test', level: 'silent' }),
    });
    const threadId = randomUUID();
    const alice = { issuer: 'https://id.example.com', subject: 'alice' };
    const bob = { issuer: 'https://id.example.com', subject: 'bob' };
    // A tenant-run issuer minting tokens with alice's subject is not alice.
    const forgedAlice = { issuer: 'https://tenant.example.net', subject: 'alice' };
    expect(await reply(runtime, threadId, 'I am Alice', alice)).toBe('I remember: I am Alice');
    expect(await reply(runtime, threadId, 'who was here?', bob)).toBe('I remember: who was here?');
    expect(await reply(runtime, threadId, 'what did alice say?', forgedAlice)).toBe('I remember: what did alice say?');
    expect(await reply(runtime, threadId, 'me again', alice)).toBe('I remember: I am Alice | me again');
    await runtime.close?.();
  });
});
