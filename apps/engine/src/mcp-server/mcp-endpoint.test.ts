// Each agent as an MCP server, with the official MCP client over streamable HTTP against real engines
// on a real database, for both placements: a dedicated engine (the agent at its root) and a pool
// (agents under /agents/{id}). The tool is listed and called, progress arrives while the run streams,
// the structured result names the run, whose record says `mcp`; a cancelled call cancels its run, also
// when the cancel reaches another replica;
// without a token the 401 leads to the resource metadata; another subject sees neither the run nor the
// thread; the older initialize is accepted; hostile input is a 4xx or a JSON-RPC error.
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { agentToolName } from '@agentplane/contracts';
import {
  createTestDatabase,
  issueTestPoolCredentials,
  makeAgent,
  makeWorkspace,
  type TestDatabase,
} from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { discoverOAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ErrorCode, LATEST_PROTOCOL_VERSION, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { RunningEngine } from '../start-engine.js';
import { type AgentRow, writeConfigRow } from '../testing/engine-config-rows.js';
import { makeCustomEngineConfig } from '../testing/module-engine-configs.js';
import { startTestIssuer, type TestIssuer } from '../testing/oidc-issuer.js';
import { readSseFrames } from '../testing/read-sse-frames.js';
import { startDatabaseEngine, startTestEngine } from '../testing/test-engine.js';

jest.setTimeout(120_000);

const FIXTURES = fileURLToPath(new URL('../agents/custom/fixtures', import.meta.url));
const NAME = 'Slow Writer';
const DESCRIPTION = 'Writes d1 d2 d3… as slowly as asked';

let database: TestDatabase;
let issuer: TestIssuer;
let dedicated: RunningEngine;
/** A second replica of the dedicated engine's agent, sharing its database. */
let replica: RunningEngine;
let pool: RunningEngine;
let ada: string;
let bob: string;
/** `publicBase`: the agent's base as its clients reach it (ENGINE_PUBLIC_URL on the pool). */
type Placement = { base: string; publicBase: string; agentId: string };
const placements: Record<string, Placement> = {};
const POOL_PUBLIC_URL = 'https://agents.example.com';
let approvalBase: string;
let approvalId: string;
let unloadedBase: string;

async function newAgent(workspaceId: string, module: string, name: string): Promise<AgentRow> {
  const row = { agentId: (await makeAgent(database.prisma, workspaceId)).id, workspaceId };
  const config = makeCustomEngineConfig(module, { ...row, name });
  await writeConfigRow(database.prisma, row, 1, { ...config, agent: { ...config.agent, description: DESCRIPTION } });
  return row;
}

beforeAll(async () => {
  database = await createTestDatabase();
  issuer = await startTestIssuer();
  const { id: workspaceId } = await makeWorkspace(database.prisma);
  const own = await newAgent(workspaceId, 'slow-agent.js:createSlowAgent', NAME);
  const pooled = await newAgent(workspaceId, 'slow-agent.js:createSlowAgent', NAME);
  const approval = await newAgent(workspaceId, 'approval-agent.js:createAgent', 'Asker');
  const unloaded = await newAgent(workspaceId, 'no-such-module.js:create', 'Ghost');
  approvalId = approval.agentId;
  const env = {
    ENGINE_AGENTS_DIR: FIXTURES,
    ENGINE_AUTH: 'oidc',
    ENGINE_OIDC_ISSUER: issuer.issuer,
    ENGINE_OIDC_AUDIENCE: issuer.audience,
  };
  const poolName = `t_${randomBytes(6).toString('hex')}`;
  const credentials = await issueTestPoolCredentials(database, poolName, [
    pooled.agentId,
    approval.agentId,
    unloaded.agentId,
  ]);
  [dedicated, replica, pool] = await Promise.all([
    startDatabaseEngine(database, own.agentId, env),
    startDatabaseEngine(database, own.agentId, env),
    startTestEngine({ ...credentials, ...env, ENGINE_PUBLIC_URL: `${POOL_PUBLIC_URL}/ignored/path` }),
  ]);
  for (const engine of [dedicated, replica]) {
    await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
  }
  placements.dedicated = { base: dedicated.url, publicBase: dedicated.url, agentId: own.agentId };
  const pooledPath = `/agents/${pooled.agentId}`;
  placements.pool = {
    base: `${pool.url}${pooledPath}`,
    publicBase: `${POOL_PUBLIC_URL}${pooledPath}`,
    agentId: pooled.agentId,
  };
  approvalBase = `${pool.url}/agents/${approval.agentId}`;
  unloadedBase = `${pool.url}/agents/${unloaded.agentId}`;
  [ada, bob] = await Promise.all([issuer.sign({ sub: 'ada' }), issuer.sign({ sub: 'bob' })]);
});

afterAll(async () => {
  await Promise.all([dedicated?.shutdown(), replica?.shutdown(), pool?.shutdown()]);
  await issuer?.close();
  await database?.drop();
});

/** `token` null: no Authorization header. */
async function connect(base: string, token: string | null = ada): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: token === null ? {} : { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'engine-tests', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Lists the tools first: the client checks a result against the output schema it learnt. */
async function connectListed(base: string, token?: string): Promise<Client> {
  const client = await connect(base, token);
  await client.listTools();
  return client;
}

type Output = { reply: string; thread_id: string; run_id: string };

const structured = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result as CallToolResult).structuredContent as Output & Record<string, unknown>;

const getJson = (url: string, token = ada) => fetch(url, { headers: { Authorization: `Bearer ${token}` } });

const runRow = (agentId: string, threadId: string) =>
  database.prisma.agentRun.findFirst({ where: { agentId, threadId }, orderBy: { createdAt: 'desc' } });

/** A JSON-RPC message posted as an MCP client would, without the SDK, to send what it would not. */
function postRpc(base: string, body: string, headers: Record<string, string> = {}) {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${ada}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
}

const callBody = (args: unknown, name = agentToolName(NAME)) =>
  JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } });

/** The JSON-RPC answer of a POST: on an SSE stream (the last data frame), or as JSON. */
async function rpcAnswer(response: Response): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const frames = await readSseFrames(response);
    return JSON.parse(frames.at(-1)?.data ?? '{}');
  }
  return response.json() as never;
}

describe.each(['dedicated', 'pool'])('the MCP endpoint of an agent (%s)', (placement) => {
  const at = () => placements[placement] as Placement;

  it('lists one tool: the agent, named from its name, described by its description, with both schemas', async () => {
    const client = await connect(at().base);
    expect(client.getServerVersion()).toMatchObject({ name: agentToolName(NAME), version: '1' });
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({
      name: 'slow_writer',
      title: NAME,
      description: DESCRIPTION,
      inputSchema: { type: 'object', required: ['message'] },
      outputSchema: { type: 'object', required: ['reply', 'thread_id', 'run_id'] },
    });
    expect(Object.keys(tools[0]?.inputSchema.properties ?? {})).toEqual(['message', 'thread_id']);
  });

  it('runs the agent for a call, with progress while it streams, into a structured result and an `mcp` run record', async () => {
    const client = await connectListed(at().base);
    const progress: { progress: number; message?: string | undefined }[] = [];
    const result = await client.callTool({ name: 'slow_writer', arguments: { message: '4 5' } }, undefined, {
      onprogress: (update) => progress.push(update),
    });
    const output = structured(result);
    expect(result.isError).toBeFalsy();
    expect(output).toMatchObject({ reply: 'd1 d2 d3 d4 ' });
    expect(result.content).toEqual([{ type: 'text', text: 'd1 d2 d3 d4 ' }]);
    expect(progress.map((update) => update.message)).toEqual(['The agent started', 'd1 ', 'd2 ', 'd3 ', 'd4 ']);
    expect(progress.map((update) => update.progress)).toEqual([1, 2, 3, 4, 5]);
    const record = await getJson(`${at().base}/agent/runs/${encodeURIComponent(output.run_id)}`);
    expect(await record.json()).toMatchObject({
      id: output.run_id,
      thread_id: output.thread_id,
      source: 'mcp',
      status: 'succeeded',
    });

    // The thread goes on with thread_id.
    const again = structured(
      await client.callTool({ name: 'slow_writer', arguments: { message: '1 0', thread_id: output.thread_id } }),
    );
    expect(again).toMatchObject({ reply: 'd1 ', thread_id: output.thread_id });
    expect(again.run_id).not.toBe(output.run_id);
  });

  it('cancels the run when the call is cancelled: notifications/cancelled reaches it on a request of its own', async () => {
    const client = await connectListed(at().base);
    const threadId = `thread-${randomUUID()}`;
    const abort = new AbortController();
    const call = client.callTool(
      { name: 'slow_writer', arguments: { message: '100000 5', thread_id: threadId } },
      undefined,
      { signal: abort.signal, onprogress: (update) => update.progress >= 3 && abort.abort('enough') },
    );
    await expect(call).rejects.toThrow();
    const row = await runRow(at().agentId, threadId);
    expect(row?.source).toBe('mcp');
    await waitUntil(async () => (await runRow(at().agentId, threadId))?.status === 'cancelled', {
      what: 'the run to be cancelled',
    });
  });

  it('cancels the run when the client goes away mid-call', async () => {
    const client = await connectListed(at().base);
    const threadId = `thread-${randomUUID()}`;
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const call = client.callTool(
      { name: 'slow_writer', arguments: { message: '100000 5', thread_id: threadId } },
      undefined,
      { onprogress: (update) => update.progress >= 2 && started() },
    );
    await running;
    await client.close();
    await expect(call).rejects.toThrow();
    await waitUntil(async () => (await runRow(at().agentId, threadId))?.status === 'cancelled', {
      what: 'the run to be cancelled',
    });
  });

  it('refuses a run on a busy thread with a tool error saying why, not a failure of the endpoint', async () => {
    const client = await connectListed(at().base);
    const threadId = `thread-${randomUUID()}`;
    const abort = new AbortController();
    const going = client.callTool(
      { name: 'slow_writer', arguments: { message: '100000 5', thread_id: threadId } },
      undefined,
      { signal: abort.signal },
    );
    await waitUntil(async () => (await runRow(at().agentId, threadId))?.status === 'running', {
      what: 'the run to start',
    });
    const refused = await client.callTool({ name: 'slow_writer', arguments: { message: '1 0', thread_id: threadId } });
    expect(refused.isError).toBe(true);
    expect(refused.content).toEqual([{ type: 'text', text: expect.stringMatching(/already in progress/) }]);
    abort.abort();
    await expect(going).rejects.toThrow();
    await waitUntil(async () => (await runRow(at().agentId, threadId))?.status === 'cancelled', {
      what: 'the run to be cancelled',
    });
  });

  it('refuses a call without a token with a 401 whose resource_metadata leads to the accepted issuers', async () => {
    await expect(connect(at().base, null)).rejects.toThrow(/401|Unauthorized/i);
    const refused = await postRpc(at().base, callBody({ message: 'hi' }), { Authorization: '' });
    expect(refused.status).toBe(401);
    const challenge = refused.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer error="invalid_token"/);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1] ?? '';
    const { origin } = new URL(at().publicBase);
    expect(metadataUrl).toBe(
      `${origin}/.well-known/oauth-protected-resource${new URL(at().publicBase).pathname.replace(/\/$/, '')}/mcp`,
    );
    const expected = {
      resource: `${at().publicBase}/mcp`,
      authorization_servers: [issuer.issuer],
      bearer_methods_supported: ['header'],
      resource_name: NAME,
    };
    // Fetched here, wherever the public URL points.
    const local = metadataUrl.replace(origin, new URL(at().base).origin);
    expect(await (await fetch(local)).json()).toEqual(expected);
    // Where the SDK's client looks by itself: the path-inserted well-known URL at the engine's root.
    expect(await discoverOAuthProtectedResourceMetadata(`${at().base}/mcp`)).toEqual(expected);
    expect(await (await fetch(`${at().base}/.well-known/oauth-protected-resource`)).json()).toEqual(expected);
    const wrong = await postRpc(at().base, callBody({ message: 'hi' }), {
      Authorization: `Bearer ${await issuer.sign({ sub: 'x', aud: 'another' })}`,
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain(`resource_metadata="${metadataUrl}"`);
  });

  it("keeps a subject's runs and threads from another subject", async () => {
    const client = await connectListed(at().base);
    const output = structured(await client.callTool({ name: 'slow_writer', arguments: { message: '1 0' } }));
    const runUrl = `${at().base}/agent/runs/${encodeURIComponent(output.run_id)}`;
    expect((await getJson(runUrl, bob)).status).toBe(404);
    expect((await getJson(`${at().base}/agent/threads/${encodeURIComponent(output.thread_id)}`, bob)).status).toBe(404);
    expect((await getJson(`${at().base}/agent/threads/${encodeURIComponent(output.thread_id)}`, ada)).status).toBe(200);
    // Bob naming Ada's thread gets a thread of his own under that id.
    const bobs = await connectListed(at().base, bob);
    const his = structured(
      await bobs.callTool({ name: 'slow_writer', arguments: { message: '1 0', thread_id: output.thread_id } }),
    );
    expect((await getJson(`${at().base}/agent/runs/${encodeURIComponent(his.run_id)}`, ada)).status).toBe(404);
    const adaThread = (await (
      await getJson(`${at().base}/agent/threads/${encodeURIComponent(output.thread_id)}`, ada)
    ).json()) as {
      messages: unknown[];
    };
    expect(adaThread.messages).toHaveLength(2);
  });

  it('negotiates the newest protocol revision and still accepts the older initialize handshakes', async () => {
    const client = await connect(at().base);
    expect((client.transport as StreamableHTTPClientTransport).protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    for (const protocolVersion of ['2025-03-26', '2024-11-05']) {
      const response = await postRpc(
        at().base,
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion, capabilities: {}, clientInfo: { name: 'old', version: '0' } },
        }),
      );
      expect(response.status).toBe(200);
      expect(await rpcAnswer(response)).toMatchObject({ result: { protocolVersion, capabilities: { tools: {} } } });
    }
  });

  it('answers hostile or invalid input with a 4xx or a JSON-RPC error, never a 500', async () => {
    const client = await connectListed(at().base);
    const invalid = [
      {},
      { message: '' },
      { message: 'x'.repeat(100_001) },
      { message: 'hi', thread_id: 'a\u0001b' },
      { message: 'hi', thread_id: 't'.repeat(600) },
      { message: 'hi', extra: true },
      { message: 42 },
    ];
    for (const args of invalid) {
      const refused = client.callTool({ name: 'slow_writer', arguments: args as Record<string, unknown> });
      await expect(refused).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    }
    await expect(client.callTool({ name: 'nope', arguments: { message: 'hi' } })).rejects.toBeInstanceOf(McpError);
    for (const body of [
      callBody({ message: 'a\u0000b' }),
      callBody({ message: '\ud800' }),
      callBody({ message: 'hi', thread_id: '\udfff' }),
    ]) {
      const response = await postRpc(at().base, body);
      expect(response.status).toBe(422);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    const statuses = await Promise.all([
      postRpc(at().base, callBody({ message: 'x'.repeat(2 * 1024 * 1024) })),
      postRpc(at().base, '{"jsonrpc": "2.0", "id": 1, "method":'),
      postRpc(at().base, 'hello', { 'Content-Type': 'text/plain' }),
      postRpc(at().base, callBody({ message: 'hi' }), { Accept: 'application/json' }),
      postRpc(at().base, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'no/such/method' })),
      postRpc(at().base, JSON.stringify({ not: 'json-rpc' })),
      postRpc(at().base, callBody({ message: 'hi' }), { 'MCP-Protocol-Version': '1999-01-01' }),
      postRpc(
        at().base,
        JSON.stringify(Array.from({ length: 101 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'ping' }))),
      ),
      fetch(`${at().base}/mcp`, { headers: { Authorization: `Bearer ${ada}` } }),
      fetch(`${at().base}/mcp`, { method: 'DELETE' }),
    ]);
    expect(statuses.map((response) => response.status)).toEqual([413, 400, 415, 406, 200, 422, 400, 400, 405, 405]);
    expect((await rpcAnswer(statuses[4] as Response)).error?.code).toBe(ErrorCode.MethodNotFound);
    const refusals = statuses.filter((answer) => answer.status >= 400);
    const problem = expect.stringMatching(/^application\/problem\+json/);
    expect(refusals.map((answer) => [answer.status, answer.headers.get('content-type')])).toEqual(
      refusals.map((answer) => [answer.status, problem]),
    );
  });
});

describe('two replicas of an agent', () => {
  it('cancel a call on one with a notifications/cancelled sent to the other', async () => {
    const client = await connectListed(dedicated.url);
    const threadId = `thread-${randomUUID()}`;
    const call = client.callTool({ name: 'slow_writer', arguments: { message: '100000 5', thread_id: threadId } });
    await waitUntil(async () => (await runRow(placements.dedicated?.agentId ?? '', threadId))?.status === 'running', {
      what: 'the run to start',
    });
    // The client's third request, after initialize (0) and tools/list (1).
    const cancel = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    expect((await postRpc(replica.url, cancel)).status).toBe(202);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/^The run ended cancelled/) }]);
    const row = await runRow(placements.dedicated?.agentId ?? '', threadId);
    expect(row).toMatchObject({ status: 'cancelled', subject: 'ada' });
  });
});

describe("the pool's path-inserted metadata URLs", () => {
  it('is a 404 problem at the root for an agent the pool does not serve', async () => {
    const unknown = `${pool.url}/.well-known/oauth-protected-resource/agents/${randomUUID()}/mcp`;
    for (const url of [unknown, `${pool.url}/.well-known/oauth-protected-resource/agents/not-a-uuid/mcp`]) {
      const response = await fetch(url);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });
});

describe('an agent whose module did not load', () => {
  it('lists its tool, and a call is an error result saying why, not a failure of the endpoint', async () => {
    const client = await connectListed(unloadedBase);
    const result = await client.callTool({ name: 'ghost', arguments: { message: 'hi' } });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/module/i) }]);
  });
});

describe('a tool call that ends waiting for a human', () => {
  it('is an error result naming the pending interrupt, the thread and the run', async () => {
    const client = await connectListed(approvalBase);
    const result = await client.callTool({ name: 'asker', arguments: { message: 'report' } });
    expect(result.isError).toBe(true);
    const output = structured(result);
    expect(output.pending_interrupts).toEqual([
      { id: `confirm-${output.run_id}`, reason: 'confirm', message: 'Send the report?' },
    ]);
    const [content] = result.content as { text: string }[];
    expect(content?.text).toContain(`interrupt confirm-${output.run_id}`);
    expect(content?.text).toContain(output.thread_id);
    const row = await runRow(approvalId, output.thread_id);
    expect(row).toMatchObject({ id: output.run_id, source: 'mcp', status: 'input_required' });
  });
});
