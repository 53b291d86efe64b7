// A tool call the agent's policy wants approved, reached through A2A: the LLM agent's run pauses (an
// A2A task is followed by its client, so its interrupts wait for an answer instead of being decided by
// the policy's `unattended`), the task is input-required and names the tool, and a message on it with
// the answer calls the tool and lets the model finish. The model is a local OpenAI-compatible server,
// the tool server-everything's get-sum, the client @a2a-js/sdk's.
import { randomUUID } from 'node:crypto';
import { TaskState } from '@a2a-js/sdk';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { asTask, connectA2a, replyOf, textOf, userMessage } from '../testing/a2a-client.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { ALLOW_EVERYTHING_STDIO, EVERYTHING_SUM, makeSumApprovalConfig } from '../testing/everything-server.js';
import { startTestIssuer, type TestIssuer } from '../testing/oidc-issuer.js';
import { startDatabaseEngine } from '../testing/test-engine.js';

let model: FakeOpenAiServer;
let database: TestDatabase;
let issuer: TestIssuer;
let engine: RunningEngine;

beforeAll(async () => {
  [model, database, issuer] = await Promise.all([startFakeOpenAiServer(), createTestDatabase(), startTestIssuer()]);
  const workspaceId = (await makeWorkspace(database.prisma)).id;
  const agentId = (await makeAgent(database.prisma, workspaceId)).id;
  const config = makeSumApprovalConfig({ agentId, workspaceId, modelUrl: model.baseUrl, issuer });
  await writeConfigRow(database.prisma, { agentId, workspaceId }, 1, config);
  engine = await startDatabaseEngine(database, agentId, { ...ALLOW_EVERYTHING_STDIO, ENGINE_AUTH: 'oidc' });
  await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
});

afterAll(async () => {
  await engine?.shutdown();
  await Promise.all([model?.close(), issuer?.close()]);
  await database?.drop();
});

describe('a tool call waiting for approval, over A2A', () => {
  it('makes the task input-required, naming the tool; the answer on the task calls it and the model finishes', async () => {
    const client = await connectA2a(engine.url, await issuer.sign({ sub: 'ada' }));
    model.script({ toolCalls: [{ id: `call_${randomUUID()}`, name: EVERYTHING_SUM, arguments: ['{"a":2,"b":40}'] }] });
    const waiting = asTask(await client.sendMessage(userMessage('add 2 and 40')));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(waiting.status?.message?.parts)).toContain(`for the tool "${EVERYTHING_SUM}"`);
    const pending = waiting.status?.message?.parts.find((part) => part.content?.$case === 'data')?.content?.value as {
      interrupts: { id: string }[];
    };
    const interruptId = pending.interrupts[0]?.id;
    expect(interruptId).toEqual(expect.any(String));

    model.script({ text: ['The sum is 42.'] });
    const answer = { resume: [{ interruptId, status: 'resolved', payload: { approved: true } }] };
    const done = asTask(
      await client.sendMessage(
        userMessage(undefined, { taskId: waiting.id, contextId: waiting.contextId }, [{ data: answer }]),
      ),
    );
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(replyOf(done)).toBe('The sum is 42.');
    const toolResults = model.requests.at(-1)?.body.messages.filter((message) => message.role === 'tool');
    expect(JSON.stringify(toolResults)).toContain('42');
  });
});
