// An agent calling a sibling agent as a tool, end to end: a manager and two dedicated engines as
// separate processes on one database. Agent A has an MCP server of transport "agent" pointing at B;
// both are LLM agents whose model (a local OpenAI-compatible server) scripts their tool calls. A's run
// calls B through B's own MCP endpoint with a token the manager mints for that call; B's run records A
// and A's run as its caller. B also has servers calling A (a cycle) and C (one call too deep, with
// MAX_AGENT_CALL_DEPTH=1): those calls are refused, and B's model reads why.
import { randomBytes, randomUUID } from 'node:crypto';
import { EventType, HttpAgent } from '@ag-ui/client';
import { agentToolName } from '@agentplane/contracts';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { ManagerClient } from '@agentplane/manager-client';
import { LOOPBACK_EGRESS_ALLOW } from '@agentplane/server-kit';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { engineEnvFor } from './testing/engine-env.js';
import { ServiceProcesses } from './testing/service-processes.js';

jest.setTimeout(120_000);

type Health = { mcp: { name: string; status: string; error?: string }[] };

const services = new ServiceProcesses();
let database: TestDatabase;
let model: FakeOpenAiServer;
let api: ManagerClient;
let engineA: string;
const agents = { a: '', b: '', c: '' };
const B_NAME = 'Researcher B';
// A's tool for B, as its engine names it: `<server>__<B's tool name on its MCP server>`.
const A_CALLS_B = `ask-b__${agentToolName(B_NAME)}`;

const llmAgent = (name: string, mcpServerIds: string[] = [], engineUrl?: string) => ({
  name,
  description: `${name}, reachable as a tool`,
  framework: 'LLM',
  // The operator's model (OPENAI_BASE_URL): the scripted local server.
  agent: { model: { provider: 'openai', name: 'fake' } },
  resources: { mcp_server_ids: mcpServerIds },
  ...(engineUrl === undefined ? {} : { engine_url: engineUrl }),
});

const agentServer = (name: string, agentId: string) => ({
  name,
  mcp_server: { name, transport: 'agent', agent_id: agentId, timeoutSeconds: 60 },
});

async function health(engineUrl: string): Promise<Health> {
  return (await (await fetch(`${engineUrl}/health`)).json()) as Health;
}

async function waitForAgentTools(engineUrl: string, names: string[]): Promise<void> {
  await waitUntil(
    async () => {
      const { mcp = [] } = await health(engineUrl);
      return names.every((name) => mcp.some((server) => server.name === name && server.status === 'connected'));
    },
    { what: `the engine at ${engineUrl} to offer ${names.join(', ')}`, timeoutMs: 30_000 },
  );
}

/** Runs A once with a user's token; resolves with A's run id and the tool results its events carried. */
async function runA(message: string): Promise<{ runId: string; toolResults: string[]; finished: boolean }> {
  const { access_token: token } = await api.expect<{ access_token: string }>(201, 'POST', `/agents/${agents.a}/token`);
  const runId = randomUUID();
  const client = new HttpAgent({
    url: `${engineA}/agent/run`,
    headers: { Authorization: `Bearer ${token}` },
    threadId: randomUUID(),
    initialMessages: [{ id: randomUUID(), role: 'user', content: message }],
  });
  const toolResults: string[] = [];
  let finished = false;
  await client.runAgent(
    { runId },
    {
      onEvent: ({ event }) => {
        if (event.type === EventType.TOOL_CALL_RESULT)
          toolResults.push((event as unknown as { content: string }).content);
        if (event.type === EventType.RUN_FINISHED) finished = true;
      },
    },
  );
  return { runId, toolResults, finished };
}

/** What B's model was given back for its own tool call: the tool message of its second request. */
function toolReplyToB(): string {
  const withToolReply = model.requests.filter((request) =>
    request.body.messages.some((message) => message.role === 'tool'),
  );
  // A's last request and B's second both carry a tool message; B's is the one before A's last.
  const reply = withToolReply.at(-2)?.body.messages.findLast((message) => message.role === 'tool');
  return String(reply?.content ?? '');
}

beforeAll(async () => {
  [database, model] = await Promise.all([createTestDatabase(), startFakeOpenAiServer()]);
  const operator = { OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'sk-operator' };
  const managerEnv = {
    ...operator,
    DATABASE_URL: database.url,
    SECRETS_KEY: randomBytes(32).toString('base64'),
    SESSION_SECRET: randomBytes(32).toString('base64'),
    EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW,
    MAX_AGENT_CALL_DEPTH: '1',
  };
  const managerUrl = await services.start('manager', managerEnv);
  await waitUntil(async () => (await fetch(`${managerUrl}/api/v1/readyz`)).ok, {
    what: 'the manager to be ready',
    timeoutMs: 30_000,
  });
  api = await ManagerClient.signUp(managerUrl);

  // C is never reached: its address only has to exist for B's tool to be offered.
  agents.c = (await api.expect<{ id: string }>(201, 'POST', '/agents/', llmAgent('C', [], 'http://127.0.0.1:9'))).id;
  agents.b = (await api.expect<{ id: string }>(201, 'POST', '/agents/', llmAgent(B_NAME))).id;
  const askB = await api.expect<{ id: string }>(201, 'POST', '/mcp-servers/', agentServer('ask-b', agents.b));
  agents.a = (await api.expect<{ id: string }>(201, 'POST', '/agents/', llmAgent('A', [askB.id]))).id;
  const askA = await api.expect<{ id: string }>(201, 'POST', '/mcp-servers/', agentServer('ask-a', agents.a));
  const askC = await api.expect<{ id: string }>(201, 'POST', '/mcp-servers/', agentServer('ask-c', agents.c));

  // Each engine on its operator-issued credentials; the engines reach each other on loopback.
  const issuer = await api.issuer();
  const engineEnv = { ...operator, ENGINE_MANAGER_ISSUER: issuer, ENGINE_EGRESS_ALLOW: '127.0.0.1/32' };
  const engineB = await services.start('engine', { ...engineEnv, ...(await engineEnvFor(managerEnv, agents.b)) });
  engineA = await services.start('engine', { ...engineEnv, ...(await engineEnvFor(managerEnv, agents.a)) });
  // B gets its engine_url and its own agent tools; A's config is republished with B's MCP endpoint.
  await api.expect(200, 'PATCH', `/agents/${agents.b}`, llmAgent(B_NAME, [askA.id, askC.id], engineB));
  await api.expect(200, 'PATCH', `/agents/${agents.a}`, llmAgent('A', [askB.id], engineA));
  await Promise.all([waitForAgentTools(engineA, ['ask-b']), waitForAgentTools(engineB, ['ask-a', 'ask-c'])]);
}, 120_000);

afterAll(async () => {
  await services.stopAll();
  await model?.close();
  await database?.drop();
});

describe('an agent calling a sibling agent as a tool', () => {
  it("calls B through B's MCP endpoint, and B's run records A and A's run as its caller", async () => {
    model.script(
      { toolCalls: [{ id: 'call_b', name: A_CALLS_B, arguments: ['{"message":"What is 6 x 7?"}'] }] },
      { text: ['Forty-two, from B.'] },
      { text: ['B says 42.'] },
    );
    // The script is taken in request order: A's first turn, then B's only one, then A's second.
    model.requests.length = 0;
    const { runId, toolResults, finished } = await runA('Ask B about 6 x 7');
    expect(finished).toBe(true);
    expect(toolResults).toEqual([expect.stringContaining('Forty-two, from B.')]);
    // A offered its model B as a tool, described as B is.
    const offered = model.requests[0]?.body.tools?.find((tool) => tool.function.name === A_CALLS_B);
    expect(offered?.function.description).toBe(`${B_NAME}, reachable as a tool`);
    // B's model was asked what A's model sent.
    expect(model.requests[1]?.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'What is 6 x 7?' });

    const calleeRuns = await database.prisma.agentRun.findMany({ where: { agentId: agents.b } });
    expect(calleeRuns).toEqual([
      expect.objectContaining({
        source: 'mcp',
        status: 'succeeded',
        callerAgentId: agents.a,
        callerRunId: runId,
        subject: `agent:${agents.a}`,
      }),
    ]);
    // The manager's runs list of B says so too.
    const listed = await api.expect<{ caller_agent_id: string; caller_run_id: string }[]>(
      200,
      'GET',
      `/agents/${agents.b}/runs`,
    );
    expect(listed).toEqual([expect.objectContaining({ caller_agent_id: agents.a, caller_run_id: runId })]);
    // A's own run was started by a person: it records no calling agent.
    const callerRun = await database.prisma.agentRun.findUniqueOrThrow({
      where: { agentId_id: { agentId: agents.a, id: runId } },
    });
    expect(callerRun).toMatchObject({ callerAgentId: null, callerRunId: null });
  });

  it("refuses B's call back to A (a cycle), and B's model reads why", async () => {
    model.script(
      { toolCalls: [{ id: 'call_b', name: A_CALLS_B, arguments: ['{"message":"Ask A back"}'] }] },
      { toolCalls: [{ id: 'call_a', name: `ask-a__${agentToolName('A')}`, arguments: ['{"message":"loop"}'] }] },
      { text: ['A could not be asked.'] },
      { text: ['B could not ask A.'] },
    );
    const { finished, toolResults } = await runA('Make B ask you');
    expect(finished).toBe(true);
    expect(toolResults).toEqual([expect.stringContaining('A could not be asked.')]);
    const reply = toolReplyToB();
    expect(reply).toContain('would make a cycle');
    expect(reply).toContain(`${agents.a} → ${agents.b} → ${agents.a}`);
  });

  it("refuses B's call to C past MAX_AGENT_CALL_DEPTH, and B's model reads why", async () => {
    model.script(
      { toolCalls: [{ id: 'call_b', name: A_CALLS_B, arguments: ['{"message":"Ask C"}'] }] },
      { toolCalls: [{ id: 'call_c', name: `ask-c__${agentToolName('C')}`, arguments: ['{"message":"hi"}'] }] },
      { text: ['C is too far.'] },
      { text: ['B could not ask C.'] },
    );
    const { finished } = await runA('Make B ask C');
    expect(finished).toBe(true);
    expect(toolReplyToB()).toContain('MAX_AGENT_CALL_DEPTH');
    // Only A's calls of B ever made a run on another agent: nothing reached A from B, nor C.
    expect(await database.prisma.agentRun.count({ where: { agentId: agents.c } })).toBe(0);
    expect(await database.prisma.agentRun.count({ where: { agentId: agents.a, callerAgentId: { not: null } } })).toBe(
      0,
    );
  });
});
