// Tool approvals as AG-UI interrupts, on real engines in database mode with tokens from a real OIDC
// issuer: the model (a local OpenAI-compatible server) calls server-everything's get-sum, which the
// policy wants approved, and echo, which it does not. The client is @ag-ui/client's HttpAgent, whose
// verifier checks every run's events; resumes that must fail are sent raw, as any client could.
import { randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import { EventType, type Interrupt, type ResumeEntry, type RunFinishedEvent } from '@ag-ui/core';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import {
  type FakeOpenAiServer,
  type OtlpReceiver,
  sampleValue,
  scrapeMetrics,
  startFakeOpenAiServer,
  startOtlpReceiver,
  waitUntil,
} from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UNANSWERED_CALL } from '../agents/llm/unanswered-calls.js';
import type { RunningEngine } from '../start-engine.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { ALLOW_EVERYTHING_STDIO, EVERYTHING_SUM, makeSumApprovalConfig } from '../testing/everything-server.js';
import { startTestIssuer, type TestIssuer } from '../testing/oidc-issuer.js';
import { readEventStream } from '../testing/read-event-stream.js';
import { type ClientRun, runWithClient } from '../testing/run-with-client.js';
import { startDatabaseEngine } from '../testing/test-engine.js';

let model: FakeOpenAiServer;
let database: TestDatabase;
let issuer: TestIssuer;
let receiver: OtlpReceiver;
let agentId: string;
let engine: RunningEngine;
let alice: string;
let bob: string;

const SUM = EVERYTHING_SUM;
const ECHO = 'everything__echo';
const ENV = { ...ALLOW_EVERYTHING_STDIO, ENGINE_AUTH: 'oidc', METRICS_PORT: '0' };

const startEngine = async (env: Record<string, string> = {}) => {
  const started = await startDatabaseEngine(database, agentId, { ...ENV, ...env });
  await waitUntil(async () => (await fetch(`${started.url}/health`)).status === 200, { what: 'the config to load' });
  return started;
};

beforeAll(async () => {
  [model, database, issuer, receiver] = await Promise.all([
    startFakeOpenAiServer(),
    createTestDatabase(),
    startTestIssuer(),
    startOtlpReceiver(),
  ]);
  const workspaceId = (await makeWorkspace(database.prisma)).id;
  agentId = (await makeAgent(database.prisma, workspaceId)).id;
  const config = makeSumApprovalConfig({
    agentId,
    workspaceId,
    modelUrl: model.baseUrl,
    issuer,
    observability: { provider: 'OTLP', endpoint: receiver.url, protocol: 'http/json' },
  });
  await writeConfigRow(database.prisma, { agentId, workspaceId }, 1, config);
  engine = await startEngine();
  [alice, bob] = await Promise.all([issuer.sign({ sub: 'alice' }), issuer.sign({ sub: 'bob' })]);
});

afterAll(async () => {
  await engine?.shutdown();
  await Promise.all([model?.close(), issuer?.close(), receiver?.close()]);
  await database?.drop();
});

const auth = (token: string | undefined): Record<string, string> =>
  token === undefined ? {} : { Authorization: `Bearer ${token}` };

function clientOf(token: string, on = engine): HttpAgent {
  return new HttpAgent({
    url: `${on.url}/agent/run`,
    headers: auth(token),
    threadId: randomUUID(),
    initialMessages: [{ id: randomUUID(), role: 'user', content: 'add 2 and 40, and say hi' }],
  });
}

const sumCall = (id: string, args = '{"a":2,"b":40}') => ({ id, name: SUM, arguments: [args] });

/** Has the model call get-sum (and echo, when asked), and returns the client run that paused on it. */
async function pause(agent: HttpAgent, { withEcho = false } = {}): Promise<{ run: ClientRun; interrupt: Interrupt }> {
  const callId = `call_${randomUUID()}`;
  const calls = [
    sumCall(callId),
    ...(withEcho ? [{ id: 'call_echo', name: ECHO, arguments: ['{"message":"hi"}'] }] : []),
  ];
  model.script({ toolCalls: calls });
  const run = await runWithClient(agent);
  expect(run.failure).toBeUndefined();
  const outcome = (run.last as RunFinishedEvent).outcome;
  if (outcome?.type !== 'interrupt') throw new Error(`the run did not pause: ${JSON.stringify(run.last)}`);
  expect(outcome.interrupts).toHaveLength(1);
  return { run, interrupt: outcome.interrupts[0] as Interrupt };
}

/** A resume sent as a raw request: the client's own checks would stop the failing ones before the engine. */
function resumeRaw(token: string | undefined, threadId: string, resume: ResumeEntry[], on = engine) {
  return fetch(`${on.url}/agent/run`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...auth(token) },
    body: JSON.stringify({
      threadId,
      runId: randomUUID(),
      messages: [],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
      resume,
    }),
  });
}

async function problemOf(response: Response): Promise<{ status: number; type: string; errors?: unknown }> {
  const body = (await response.json()) as { type: string; errors?: unknown };
  return { status: response.status, type: body.type, errors: body.errors };
}

const readJson = async <T>(path: string, token: string, on = engine) =>
  (await (await fetch(`${on.url}${path}`, { headers: auth(token) })).json()) as T;

/** Queues a background run of a new thread, and waits until it succeeded. */
async function runInBackground(runId: string): Promise<void> {
  const queued = await fetch(`${engine.url}/agent/runs`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...auth(alice) },
    body: JSON.stringify({
      threadId: randomUUID(),
      runId,
      messages: [{ id: randomUUID(), role: 'user', content: 'add' }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    }),
  });
  expect(queued.status).toBe(202);
  await waitUntil(
    async () => (await readJson<{ status: string }>(`/agent/runs/${runId}`, alice)).status === 'succeeded',
    {
      what: 'the background run to succeed',
    },
  );
}

const lastToolMessage = () =>
  model.requests
    .at(-1)
    ?.body.messages.filter((message) => message.role === 'tool')
    .at(-1);

/** The `agentplane.interrupt` events on the span of the run that sent these events, once it is exported. */
async function interruptEventsOf(run: ClientRun) {
  const announced = run.events.find((event) => event.type === EventType.CUSTOM) as unknown as {
    value: { trace_id: string };
  };
  const runSpan = () =>
    receiver.spans().find((span) => span.traceId === announced.value.trace_id && span.name.startsWith('invoke_agent'));
  await waitUntil(() => runSpan() !== undefined, { what: "the run's span to be exported" });
  return runSpan()?.events.filter((event) => event.name === 'agentplane.interrupt');
}

const interruptsCounted = async (outcome: string) =>
  sampleValue(await scrapeMetrics(engine.metricsUrl as string), 'agentplane_interrupts_total', {
    reason: 'tool_approval',
    outcome,
  });

describe('a tool call that needs approval', () => {
  it('pauses the run with an interrupt the client accepts, lists it on the thread, and is approved after a restart', async () => {
    const agent = clientOf(alice);
    const { run, interrupt } = await pause(agent, { withEcho: true });
    expect(interrupt).toEqual({
      id: expect.any(String),
      reason: 'tool_approval',
      message: `The agent wants to call the tool "${SUM}" with {"a":2,"b":40}. Approve?`,
      toolCallId: expect.stringMatching(/^call_/),
      responseSchema: expect.objectContaining({
        properties: expect.objectContaining({
          editedArgs: expect.objectContaining({ properties: expect.objectContaining({ a: expect.anything() }) }),
        }),
      }),
      expiresAt: expect.any(String),
      metadata: { toolName: SUM, arguments: { a: 2, b: 40 } },
    });
    expect(Date.parse(interrupt.expiresAt as string) - Date.now()).toBeGreaterThan(3_500_000);
    // The step's other call ran; the one waiting for approval did not.
    const results = run.events.filter((event) => event.type === EventType.TOOL_CALL_RESULT);
    expect(results).toEqual([expect.objectContaining({ toolCallId: 'call_echo' })]);
    expect(agent.pendingInterrupts).toEqual([interrupt]);

    const runId = (run.events[0] as unknown as { runId: string }).runId;
    expect(await readJson<{ status: string }>(`/agent/runs/${runId}`, alice)).toMatchObject({
      status: 'input_required',
    });
    const thread = await readJson<{ interrupts: Interrupt[] }>(`/agent/threads/${agent.threadId}`, alice);
    expect(thread.interrupts).toEqual([interrupt]);
    expect(await interruptsCounted('raised')).toBeGreaterThanOrEqual(1);
    expect(await interruptEventsOf(run)).toEqual([
      {
        name: 'agentplane.interrupt',
        attributes: {
          'agentplane.interrupt.reason': 'tool_approval',
          'agentplane.interrupt.outcome': 'raised',
          'gen_ai.tool.name': SUM,
          'gen_ai.tool.call.id': interrupt.toolCallId,
        },
      },
    ]);

    // Another replica, or this one restarted, resumes it: the interrupt is in the database only.
    await engine.shutdown();
    engine = await startEngine();
    agent.url = `${engine.url}/agent/run`;
    model.script({ text: ['The sum is 42.'] });
    const resumed = await runWithClient(agent, { resume: [{ interruptId: interrupt.id, status: 'resolved' }] });
    expect(resumed.failure).toBeUndefined();
    expect(resumed.events).toContainEqual(
      expect.objectContaining({
        type: EventType.TOOL_CALL_RESULT,
        toolCallId: interrupt.toolCallId,
        content: expect.stringContaining('42'),
      }),
    );
    expect((resumed.last as RunFinishedEvent).outcome).toBeUndefined();
    // The model saw both results of its turn, right after the turn, then answered.
    const sent = model.requests.at(-1)?.body.messages ?? [];
    expect(sent.slice(-3).map((message) => message.role)).toEqual(['assistant', 'tool', 'tool']);
    expect(lastToolMessage()).toMatchObject({
      tool_call_id: interrupt.toolCallId,
      content: expect.stringContaining('42'),
    });
    expect(agent.pendingInterrupts).toEqual([]);
    expect(await readJson<{ interrupts: Interrupt[] }>(`/agent/threads/${agent.threadId}`, alice)).toMatchObject({
      interrupts: [],
    });
    expect(await interruptsCounted('approved')).toBe(1);
    expect(await interruptEventsOf(resumed)).toEqual([
      expect.objectContaining({ attributes: expect.objectContaining({ 'agentplane.interrupt.outcome': 'approved' }) }),
    ]);

    // Answered once: a second answer is refused.
    const again = await resumeRaw(alice, agent.threadId, [{ interruptId: interrupt.id, status: 'resolved' }]);
    expect(await problemOf(again)).toMatchObject({ status: 409, type: 'urn:agentplane:problem:interrupt-answered' });
  });

  it('calls the tool with edited arguments, after refusing edits its input schema does not allow', async () => {
    const agent = clientOf(alice);
    const { interrupt } = await pause(agent);
    const invalid = await resumeRaw(alice, agent.threadId, [
      { interruptId: interrupt.id, status: 'resolved', payload: { editedArgs: { a: 'two', b: 40 } } },
    ]);
    expect(await problemOf(invalid)).toMatchObject({
      status: 422,
      type: 'urn:agentplane:problem:invalid-resume',
      errors: [{ path: 'resume[0].payload.editedArgs', message: expect.any(String) }],
    });
    const unknownField = await resumeRaw(alice, agent.threadId, [
      { interruptId: interrupt.id, status: 'resolved', payload: { approve: true } },
    ]);
    expect(await problemOf(unknownField)).toMatchObject({ status: 422, type: 'urn:agentplane:problem:invalid-resume' });

    model.script({ text: ['The sum is 7.'] });
    const resumed = await runWithClient(agent, {
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { editedArgs: { a: 3, b: 4 } } }],
    });
    expect(resumed.failure).toBeUndefined();
    expect(lastToolMessage()).toMatchObject({
      tool_call_id: interrupt.toolCallId,
      content: expect.stringContaining('7'),
    });
  });

  it('gives the model a refusal when the call is rejected, and the model goes on', async () => {
    const agent = clientOf(alice);
    const { interrupt } = await pause(agent);
    model.script({ text: ['I will not add then.'] });
    const resumed = await runWithClient(agent, { resume: [{ interruptId: interrupt.id, status: 'cancelled' }] });
    expect(resumed.failure).toBeUndefined();
    expect(lastToolMessage()).toEqual({
      role: 'tool',
      tool_call_id: interrupt.toolCallId,
      content: `The call of the tool "${SUM}" was not made: a human rejected it.`,
    });
    expect(resumed.types).toContain(EventType.TEXT_MESSAGE_CONTENT);
    expect(await interruptsCounted('rejected')).toBe(1);
  });

  it('lets the thread go on without an answer: the next run gives the model a result saying the call was not made', async () => {
    const agent = clientOf(alice);
    const { interrupt } = await pause(agent);
    model.script({ text: ['Something else, then.'] });
    // A raw run, as a client other than HttpAgent (which holds the interrupt) may send.
    const next = await fetch(`${engine.url}/agent/run`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...auth(alice) },
      body: JSON.stringify({
        threadId: agent.threadId,
        runId: randomUUID(),
        messages: [{ id: randomUUID(), role: 'user', content: 'never mind' }],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      }),
    });
    expect(next.status).toBe(200);
    const stream = await next.text();
    expect(stream).toContain('RUN_FINISHED');
    expect(stream).not.toContain('RUN_ERROR');
    expect(lastToolMessage()).toEqual({ role: 'tool', tool_call_id: interrupt.toolCallId, content: UNANSWERED_CALL });
  });

  it('lets exactly one of two racing resumes answer an interrupt', async () => {
    const agent = clientOf(alice);
    const { interrupt } = await pause(agent);
    // One model turn: the losing resume never reaches the model.
    model.script({ text: ['Done.'] });
    const answer: ResumeEntry[] = [{ interruptId: interrupt.id, status: 'resolved' }];
    const responses = await Promise.all([
      resumeRaw(alice, agent.threadId, answer),
      resumeRaw(alice, agent.threadId, answer),
    ]);
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 409]);
    const winner = responses.find((response) => response.status === 200) as Response;
    const loser = responses.find((response) => response.status === 409) as Response;
    expect(await problemOf(loser)).toMatchObject({ type: 'urn:agentplane:problem:interrupt-answered' });
    const { events } = await readEventStream(winner);
    expect(events.filter((event) => event.type === EventType.TOOL_CALL_RESULT)).toHaveLength(1);
    expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
  });

  it("answers another subject's resume with 404, and an interrupt the thread does not have with 422", async () => {
    const agent = clientOf(alice);
    const { interrupt } = await pause(agent);
    const asBob = await resumeRaw(bob, agent.threadId, [{ interruptId: interrupt.id, status: 'resolved' }]);
    expect(await problemOf(asBob)).toMatchObject({ status: 404, type: 'urn:agentplane:problem:not-found' });
    const unknown = await resumeRaw(alice, agent.threadId, [{ interruptId: randomUUID(), status: 'resolved' }]);
    expect(await problemOf(unknown)).toMatchObject({ status: 422, type: 'urn:agentplane:problem:unknown-interrupt' });
    const twice = await resumeRaw(alice, agent.threadId, [
      { interruptId: interrupt.id, status: 'resolved' },
      { interruptId: interrupt.id, status: 'cancelled' },
    ]);
    expect(await problemOf(twice)).toMatchObject({ status: 422, type: 'urn:agentplane:problem:invalid-resume' });
    for (const interruptId of ['a\u0000b', 'a\ud800b', 'x'.repeat(100_000)]) {
      const refused = await resumeRaw(alice, agent.threadId, [{ interruptId, status: 'resolved' }]);
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expect(refused.status).toBeLessThan(500);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
    }
    const anonymous = await resumeRaw(undefined, agent.threadId, [{ interruptId: interrupt.id, status: 'resolved' }]);
    expect(anonymous.status).toBe(401);
    // None of these answered it: it is still open, and alice can answer it.
    expect(await readJson<{ interrupts: Interrupt[] }>(`/agent/threads/${agent.threadId}`, alice)).toMatchObject({
      interrupts: [interrupt],
    });
  });

  it('refuses an answer to an expired interrupt', async () => {
    const shortLived = await startEngine({ ENGINE_INTERRUPT_TTL_SECONDS: '1' });
    try {
      const agent = clientOf(alice, shortLived);
      const { interrupt } = await pause(agent);
      const expiresAt = Date.parse(interrupt.expiresAt as string);
      await waitUntil(async () => Date.now() > expiresAt + 50, { what: 'the interrupt to expire' });
      const late = await resumeRaw(
        alice,
        agent.threadId,
        [{ interruptId: interrupt.id, status: 'resolved' }],
        shortLived,
      );
      expect(await problemOf(late)).toMatchObject({ status: 409, type: 'urn:agentplane:problem:interrupt-expired' });
      expect(
        await readJson<{ interrupts: Interrupt[] }>(`/agent/threads/${agent.threadId}`, alice, shortLived),
      ).toMatchObject({ interrupts: [] });
    } finally {
      await shortLived.shutdown();
    }
  });

  it('makes one interrupt per waiting call of a step, answered one by one', async () => {
    const agent = clientOf(alice);
    model.script({ toolCalls: [sumCall('call_first', '{"a":1,"b":2}'), sumCall('call_second', '{"a":3,"b":4}')] });
    const paused = await runWithClient(agent);
    const outcome = (paused.last as RunFinishedEvent).outcome;
    if (outcome?.type !== 'interrupt') throw new Error('the run did not pause');
    expect(outcome.interrupts.map((interrupt) => interrupt.toolCallId)).toEqual(['call_first', 'call_second']);
    const [first, second] = outcome.interrupts as [Interrupt, Interrupt];

    // The first alone: its call runs, and the run ends waiting for the second again, without the model.
    const requests = model.requests.length;
    const one = await readEventStream(
      await resumeRaw(alice, agent.threadId, [{ interruptId: first.id, status: 'resolved' }]),
    );
    expect(one.events).toContainEqual(
      expect.objectContaining({
        type: EventType.TOOL_CALL_RESULT,
        toolCallId: 'call_first',
        content: expect.stringContaining('3'),
      }),
    );
    expect((one.events.at(-1) as RunFinishedEvent).outcome).toEqual({ type: 'interrupt', interrupts: [second] });
    expect(model.requests.length).toBe(requests);
    const runId = (one.events[0] as unknown as { runId: string }).runId;
    expect(await readJson<{ status: string }>(`/agent/runs/${runId}`, alice)).toMatchObject({
      status: 'input_required',
    });

    model.script({ text: ['3 and 7.'] });
    const two = await readEventStream(
      await resumeRaw(alice, agent.threadId, [{ interruptId: second.id, status: 'resolved' }]),
    );
    expect((two.events.at(-1) as RunFinishedEvent).outcome).toBeUndefined();
    const sent = model.requests.at(-1)?.body.messages ?? [];
    expect(sent.slice(-3).map((message) => [message.role, message.tool_call_id])).toEqual([
      ['assistant', undefined],
      ['tool', 'call_first'],
      ['tool', 'call_second'],
    ]);
  });

  it('is refused in a background run nobody watches, and the run says so', async () => {
    const runId = randomUUID();
    model.script({ toolCalls: [sumCall('call_unattended')] }, { text: ['Nobody approved it.'] });
    await runInBackground(runId);
    const refusal = `The call of the tool "${SUM}" was not made: it needs a human approval, and nobody can give one to this run.`;
    expect(lastToolMessage()).toEqual({ role: 'tool', tool_call_id: 'call_unattended', content: refusal });
    const { events } = await readJson<{ events: { event: unknown }[] }>(`/agent/runs/${runId}/events`, alice);
    expect(events.map((entry) => entry.event)).toContainEqual(
      expect.objectContaining({ type: EventType.TOOL_CALL_RESULT, toolCallId: 'call_unattended', content: refusal }),
    );
    expect(await interruptsCounted('unattended_rejected')).toBe(1);
  });

  it('runs in a background run when the policy says unattended: allow', async () => {
    const row = await database.prisma.engineConfig.findUniqueOrThrow({ where: { agentId } });
    const config = row.config as { agent: { config: { tools: object } } };
    config.agent.config.tools = { approval: ['*__get-sum'], unattended: 'allow' };
    await writeConfigRow(database.prisma, { agentId, workspaceId: row.workspaceId }, 2, config);
    await waitUntil(
      async () =>
        ((await (await fetch(`${engine.url}/health`)).json()) as { config_version?: number }).config_version === 2,
      { what: 'config version 2 to be served' },
    );
    const runId = randomUUID();
    model.script({ toolCalls: [sumCall('call_allowed')] }, { text: ['42.'] });
    await runInBackground(runId);
    expect(lastToolMessage()).toMatchObject({ tool_call_id: 'call_allowed', content: expect.stringContaining('42') });
    expect(await interruptsCounted('unattended_allowed')).toBe(1);
  });
});
