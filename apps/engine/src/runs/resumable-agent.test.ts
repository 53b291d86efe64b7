// The AG-UI client fit, against a real engine process: @agentplane/agent-client's ResumableHttpAgent
// resumes a thread's running run with connectAgent() after the client that started it dropped, and
// plain HttpAgent runs are as they were.
import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BaseEvent, EventType, HttpAgent, type Message } from '@ag-ui/client';
import { ResumableHttpAgent } from '@agentplane/agent-client';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { type EngineProcess, startServingEngineProcess } from '../testing/engine-process.js';
import { makeCustomEngineConfig } from '../testing/module-engine-configs.js';
import { engineCredentialsFor } from '../testing/test-engine.js';

jest.setTimeout(60_000);

const FIXTURES = fileURLToPath(new URL('../agents/custom/fixtures', import.meta.url));
const CONTINUE = { agentplane: { onDisconnect: 'continue' } };

let database: TestDatabase;
let engine: EngineProcess;
let runUrl: string;
const processes: EngineProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  const workspace = await makeWorkspace(database.prisma);
  const agent = await makeAgent(database.prisma, workspace.id);
  const row = { agentId: agent.id, workspaceId: workspace.id };
  await writeConfigRow(database.prisma, row, 1, makeCustomEngineConfig('slow-agent.js:createSlowAgent', row));
  engine = await startServingEngineProcess(
    { ...(await engineCredentialsFor(database, agent.id)), ENGINE_AGENTS_DIR: FIXTURES },
    processes,
  );
  runUrl = `${engine.url}/agent/run`;
});

afterAll(async () => {
  for (const process of processes) await process.kill('SIGKILL');
  await database?.drop();
});

/** A gate file not there yet, and the user message that makes the slow agent stream `before` deltas, wait for it, then `after` more. */
async function gatedMessage(before: number, after: number): Promise<{ message: Message; open: () => Promise<void> }> {
  const gateFile = path.join(await mkdtemp(path.join(tmpdir(), 'gate-')), 'open');
  return {
    message: { id: randomUUID(), role: 'user', content: `${before + after} 0 ${gateFile} ${before}` },
    open: () => writeFile(gateFile, ''),
  };
}

const deltasIn = (events: BaseEvent[]) => events.filter((event) => event.type === EventType.TEXT_MESSAGE_CONTENT);
const answer = (runId: string, deltas: number) => ({
  id: `msg-${runId}`,
  role: 'assistant',
  content: Array.from({ length: deltas }, (_, i) => `d${i + 1} `).join(''),
});

describe('ResumableHttpAgent', () => {
  it('when the client that started a run drops, connectAgent() on a fresh agent gets the whole run to its end', async () => {
    const threadId = randomUUID();
    const runId = randomUUID();
    const gate = await gatedMessage(3, 4);
    const first = new HttpAgent({ url: runUrl, threadId, initialMessages: [gate.message] });
    let firstDeltas = 0;
    await first.runAgent(
      { runId, forwardedProps: CONTINUE },
      {
        onTextMessageContentEvent: () => {
          if (++firstDeltas === 3) first.abortRun();
        },
      },
    );
    expect(firstDeltas).toBe(3);

    // A page reloaded: a new agent object that knows the thread, not the run.
    const resumed = new ResumableHttpAgent({ url: runUrl, threadId, initialMessages: [gate.message] });
    const events: BaseEvent[] = [];
    const connected = resumed.connectAgent({}, { onEvent: ({ event }) => void events.push(event) });
    await waitUntil(() => deltasIn(events).length === 3, { what: 'the replay of the deltas sent so far' });
    // The agent is held at its gate, so what follows comes live from a run that was still going.
    const stored = await database.prisma.agentRun.findFirstOrThrow({ where: { id: runId } });
    expect(stored.status).toBe('running');
    await gate.open();

    const { newMessages } = await connected;
    expect(events.map((event) => event.type)).toEqual([
      EventType.RUN_STARTED,
      EventType.TEXT_MESSAGE_START,
      ...Array.from({ length: 7 }, () => EventType.TEXT_MESSAGE_CONTENT),
      EventType.TEXT_MESSAGE_END,
      EventType.RUN_FINISHED,
    ]);
    expect(newMessages).toEqual([answer(runId, 7)]);
    expect(resumed.messages).toEqual([gate.message, answer(runId, 7)]);
  });

  it('connectAgent() with a run id replays that run, even one that has ended', async () => {
    const gate = await gatedMessage(1, 1);
    await gate.open();
    const runId = randomUUID();
    const threadId = randomUUID();
    await new HttpAgent({ url: runUrl, threadId, initialMessages: [gate.message] }).runAgent({ runId });

    const resumed = new ResumableHttpAgent({ url: runUrl, threadId });
    const { newMessages } = await resumed.connectAgent({ runId });
    expect(newMessages).toEqual([answer(runId, 2)]);
  });

  it('connectAgent() on a thread with no run going, or an unknown thread, ends at once without events', async () => {
    const gate = await gatedMessage(1, 0);
    const threadId = randomUUID();
    await new HttpAgent({ url: runUrl, threadId, initialMessages: [gate.message] }).runAgent();

    for (const thread of [threadId, randomUUID()]) {
      const events: BaseEvent[] = [];
      const { newMessages } = await new ResumableHttpAgent({ url: runUrl, threadId: thread }).connectAgent(
        {},
        { onEvent: ({ event }) => void events.push(event) },
      );
      expect(newMessages).toEqual([]);
      expect(events).toEqual([]);
    }
  });

  it.each([
    ['HttpAgent', HttpAgent],
    ['ResumableHttpAgent', ResumableHttpAgent],
  ])('%s runs a plain run as before', async (_, Agent) => {
    const gate = await gatedMessage(2, 1);
    await gate.open();
    const runId = randomUUID();
    const agent = new Agent({ url: runUrl, initialMessages: [gate.message] });
    const { newMessages } = await agent.runAgent({ runId });
    expect(newMessages).toEqual([answer(runId, 3)]);
  });
});
