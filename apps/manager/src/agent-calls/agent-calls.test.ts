// Agents as tools of other agents, on the manager's side: MCP servers of transport "agent", what the
// calling agent's engine_config gets, deleting an agent that is called, and the agent-call tokens with
// every refusal (credential, edge, workspace, run, cycle, depth, hostile input).
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { TEngineConfig } from '@agentplane/contracts';
import { createAgentKeyring } from '@agentplane/db';
import { listenOnLoopback } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import request from 'supertest';
import {
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
  TEST_SECRETS_KEY,
  uniquePoolName,
} from '../testing/manager-test-app.js';
import { agentBody, createThroughApi } from '../testing/resource-fixtures.js';

const MAX_DEPTH = 2;
const POOL = uniquePoolName('calls');

let ctx: ManagerTestContext;
let server: Server;
let issuer: string;
beforeAll(async () => {
  server = createServer((req, res) => ctx.app(req, res));
  issuer = (await listenOnLoopback(server)).origin;
  ctx = await startManagerTestApp({
    ISSUER_URL: issuer,
    MAX_AGENT_CALL_DEPTH: String(MAX_DEPTH),
    ENGINE_POOLS: `${POOL}=http://pool.internal:8001`,
  });
});
afterAll(async () => {
  if (server) await new Promise((resolve) => server.close(resolve));
  await ctx?.close();
});

const db = () => ctx.database.prisma;

function agentServer(agentId: string, overrides: Record<string, unknown> = {}) {
  return {
    name: `calls-${agentId.slice(0, 8)}`,
    mcp_server: { name: 'helper', transport: 'agent', agent_id: agentId, ...overrides },
  };
}

async function createAgent(user: SignedInUser, mcpServerIds: string[] = [], overrides: Record<string, unknown> = {}) {
  return createThroughApi(user, '/api/v1/agents/', agentBody({ mcp_server_ids: mcpServerIds }, overrides));
}

async function engineConfigOf(user: SignedInUser, agentId: string) {
  const response = await user.agent.get(`/api/v1/agents/${agentId}/engine-config`);
  expect(response.status).toBe(200);
  return response.body as { version: number; config: TEngineConfig };
}

/** The credential published in the agent's engine_config, as its engine opens it (the API masks it). */
async function publishedCredential(agentId: string): Promise<string | undefined> {
  const row = await db().engineConfig.findUniqueOrThrow({ where: { agentId } });
  const sealed = (row.config as TEngineConfig).agent_calls?.credential;
  return sealed && createAgentKeyring(TEST_SECRETS_KEY).boxForPlacement({ agentId, pool: null }).open(sealed);
}

/** A caller agent with an MCP server calling `calleeId`, and the credential its config was published with. */
async function callerOf(user: SignedInUser, calleeId: string) {
  const serverId = await createThroughApi(user, '/api/v1/mcp-servers/', agentServer(calleeId));
  const callerId = await createAgent(user, [serverId]);
  return { callerId, serverId, credential: (await publishedCredential(callerId)) as string };
}

/** A run of `agentId`, as its engine records it; `calledBy` is the run that called it. */
async function recordRun(
  agentId: string,
  options: { status?: string; calledBy?: { agentId: string; runId: string } } = {},
) {
  const id = `run-${randomUUID()}`;
  await db().agentRun.create({
    data: {
      id,
      agentId,
      threadId: 't',
      threadKey: `k-${id}`,
      source: 'mcp',
      status: (options.status ?? 'running') as 'running',
      callerAgentId: options.calledBy?.agentId ?? null,
      callerRunId: options.calledBy?.runId ?? null,
    },
  });
  return id;
}

function askToken(credential: string | undefined, body: unknown) {
  const call = request(ctx.app).post('/api/v1/agent-calls/tokens').set('Content-Type', 'application/json');
  return (credential === undefined ? call : call.set('Authorization', `Bearer ${credential}`)).send(
    JSON.stringify(body),
  );
}

describe('an MCP server of transport "agent"', () => {
  it("publishes the callee's MCP endpoint, derived from its engine_url, and a call credential into the caller's config", async () => {
    const user = await signUpUser(ctx.app);
    const calleeId = await createAgent(user, [], {
      engine_url: 'http://callee.internal:8001',
      description: 'Finds facts',
    });
    const { callerId, credential } = await callerOf(user, calleeId);
    const { config } = await engineConfigOf(user, callerId);
    expect(config.mcp_servers).toEqual([expect.objectContaining({ transport: 'agent', agent_id: calleeId })]);
    expect(config.agent_calls?.callees).toEqual([
      {
        agent_id: calleeId,
        name: expect.any(String),
        description: 'Finds facts',
        url: 'http://callee.internal:8001/mcp',
        platform_url: false,
      },
    ]);
    expect(credential).toMatch(new RegExp(`^${callerId}\\.[A-Za-z0-9_-]{43}$`));
    // No role reads it through the API: it is the engine's.
    expect(config.agent_calls?.credential).toMatch(/^•+/);
    expect(config.agent_calls?.credential).not.toBe(credential);
    const stored = await db().agent.findUniqueOrThrow({ where: { id: callerId } });
    expect(stored.callCredentialHash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.callCredentialHash).not.toContain(credential.split('.')[1]);
    // The callee's config calls nobody.
    expect((await engineConfigOf(user, calleeId)).config.agent_calls).toBeNull();
  });

  it("derives a pooled callee's endpoint from its pool's URL, which the engine reaches as the platform's", async () => {
    const user = await signUpUser(ctx.app);
    const calleeId = await createAgent(user, [], { deployment: { mode: 'pool', pool: POOL } });
    const { callerId } = await callerOf(user, calleeId);
    const { config } = await engineConfigOf(user, callerId);
    expect(config.agent_calls?.callees).toEqual([
      expect.objectContaining({ url: `http://pool.internal:8001/agents/${calleeId}/mcp`, platform_url: true }),
    ]);
  });

  it("republishes the caller when the callee moves, keeping the caller's credential", async () => {
    const user = await signUpUser(ctx.app);
    const calleeId = await createAgent(user, [], { engine_url: 'http://old.internal:8001' });
    const { callerId, credential } = await callerOf(user, calleeId);
    const before = await engineConfigOf(user, callerId);
    const callee = await user.agent.get(`/api/v1/agents/${calleeId}`);
    const patched = await user.agent.patch(`/api/v1/agents/${calleeId}`).send({
      ...agentBody({}, { name: callee.body.name, engine_url: 'http://new.internal:9000/' }),
    });
    expect(patched.status).toBe(200);
    const after = await engineConfigOf(user, callerId);
    expect(after.version).toBe(before.version + 1);
    expect(after.config.agent_calls?.callees[0]?.url).toBe('http://new.internal:9000/mcp');
    expect(await publishedCredential(callerId)).toBe(credential);
  });

  it.each([
    ['url', { url: 'http://127.0.0.1:1/mcp' }],
    ['command', { command: 'node' }],
    ['headers', { headers: { Authorization: 'Bearer stolen' } }],
    ['env', { env: { TOKEN: 'x' } }],
    ['args', { args: ['--x'] }],
  ])('refuses a tenant-supplied %s (422)', async (field, extra) => {
    const user = await signUpUser(ctx.app);
    const calleeId = await createAgent(user);
    const response = await user.agent.post('/api/v1/mcp-servers/').send(agentServer(calleeId, extra));
    expectProblemShape(response, 422);
    expect(response.body.errors).toEqual([expect.objectContaining({ path: `mcp_server.${field}` })]);
  });

  it('refuses a missing agent_id, an agent_id on another transport, and a non-UUID one (422)', async () => {
    const user = await signUpUser(ctx.app);
    const missing = await user.agent
      .post('/api/v1/mcp-servers/')
      .send({ name: 'x', mcp_server: { name: 'x', transport: 'agent' } });
    expectProblemShape(missing, 422);
    expect(missing.body.errors).toEqual([expect.objectContaining({ path: 'mcp_server.agent_id' })]);
    const elsewhere = await user.agent.post('/api/v1/mcp-servers/').send({
      name: 'x',
      mcp_server: { name: 'x', url: 'http://127.0.0.1:9/mcp', agent_id: randomUUID() },
    });
    expectProblemShape(elsewhere, 422);
    for (const agentId of ['not-a-uuid', 'a\u0000b', '\ud800', 'x'.repeat(100_000)]) {
      expectProblemShape(await user.agent.post('/api/v1/mcp-servers/').send(agentServer(agentId)), 422);
    }
  });

  it("refuses an unknown agent and another workspace's agent like any other reference (422), on create and update", async () => {
    const user = await signUpUser(ctx.app);
    const other = await signUpUser(ctx.app);
    const theirs = await createAgent(other);
    for (const agentId of [theirs, randomUUID()]) {
      const response = await user.agent.post('/api/v1/mcp-servers/').send(agentServer(agentId));
      expectProblemShape(response, 422);
      expect(response.body.errors).toEqual([
        { path: 'mcp_server.agent_id', message: `No agent with id ${agentId} in this workspace` },
      ]);
    }
    const mine = await createAgent(user);
    const serverId = await createThroughApi(user, '/api/v1/mcp-servers/', agentServer(mine));
    expectProblemShape(await user.agent.patch(`/api/v1/mcp-servers/${serverId}`).send(agentServer(theirs)), 422);
  });
});

describe('deleting an agent that another agent calls', () => {
  it('answers 409 naming the MCP server, and 204 once the server is gone', async () => {
    const user = await signUpUser(ctx.app);
    const calleeId = await createAgent(user);
    const { callerId, serverId } = await callerOf(user, calleeId);
    const refused = await user.agent.delete(`/api/v1/agents/${calleeId}`);
    expectProblemShape(refused, 409);
    expect(refused.body.detail).toContain(`"calls-${calleeId.slice(0, 8)}"`);
    expect(await db().agent.count({ where: { id: calleeId } })).toBe(1);
    expect((await user.agent.patch(`/api/v1/agents/${callerId}`).send(agentBody({}, { name: 'caller' }))).status).toBe(
      200,
    );
    expect((await user.agent.delete(`/api/v1/mcp-servers/${serverId}`)).status).toBe(204);
    expect((await user.agent.delete(`/api/v1/agents/${calleeId}`)).status).toBe(204);
  });

  it('never leaves a server pointing at a deleted agent when the delete races the create', async () => {
    const user = await signUpUser(ctx.app);
    for (let round = 0; round < 8; round++) {
      const calleeId = await createAgent(user);
      const [created, deleted] = await Promise.all([
        user.agent.post('/api/v1/mcp-servers/').send(agentServer(calleeId)),
        user.agent.delete(`/api/v1/agents/${calleeId}`),
      ]);
      // Exactly one wins: the server (the delete is then refused) or the delete (the server is then refused).
      expect([created.status, deleted.status].sort()).toEqual(created.status === 201 ? [201, 409] : [204, 422]);
      const agentLeft = await db().agent.count({ where: { id: calleeId } });
      const servers = await db().mcpServer.count({ where: { agentId: calleeId } });
      expect({ agentLeft, servers }).toEqual(
        created.status === 201 ? { agentLeft: 1, servers: 1 } : { agentLeft: 0, servers: 0 },
      );
    }
  });
});

describe('POST /api/v1/agent-calls/tokens', () => {
  it('mints a short-lived token for the callee, on behalf of the calling agent, with the chain so far', async () => {
    const user = await signUpUser(ctx.app);
    const calleeId = await createAgent(user);
    const { callerId, credential } = await callerOf(user, calleeId);
    const runId = await recordRun(callerId);
    const response = await askToken(credential, { callee_agent_id: calleeId, caller_run_id: runId });
    expect(response.status).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    const { payload } = await jwtVerify(
      response.body.access_token,
      createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`)),
      { issuer, audience: calleeId, algorithms: ['ES256'] },
    );
    expect(payload).toMatchObject({
      sub: `agent:${callerId}`,
      workspace_id: user.workspaceId,
      scope: 'agent:run',
      agent_call: { caller_agent_id: callerId, caller_run_id: runId, chain: [callerId] },
    });
    expect(payload).not.toHaveProperty('email');
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(120);
  });

  it('refuses a missing, malformed or wrong credential (401), and one forgotten once the agent calls nobody', async () => {
    const user = await signUpUser(ctx.app);
    const calleeId = await createAgent(user);
    const { callerId, credential } = await callerOf(user, calleeId);
    const body = { callee_agent_id: calleeId, caller_run_id: await recordRun(callerId) };
    const wrong = `${callerId}.${'A'.repeat(43)}`;
    for (const bad of [undefined, 'nonsense', wrong, `${randomUUID()}.${credential.split('.')[1]}`, `${credential}x`]) {
      const response = await askToken(bad, body);
      expectProblemShape(response, 401);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    }
    expect((await askToken(credential, body)).status).toBe(201);
    // Detached from its last agent-calling server, the caller's credential is worth nothing.
    const callerName = (await user.agent.get(`/api/v1/agents/${callerId}`)).body.name;
    expect(
      (await user.agent.patch(`/api/v1/agents/${callerId}`).send(agentBody({}, { name: callerName }))).status,
    ).toBe(200);
    expect((await engineConfigOf(user, callerId)).config.agent_calls).toBeNull();
    expectProblemShape(await askToken(credential, body), 401);
  });

  it("refuses an agent the caller has no server for, and another workspace's agent (403)", async () => {
    const user = await signUpUser(ctx.app);
    const other = await signUpUser(ctx.app);
    const calleeId = await createAgent(user);
    const { callerId, credential } = await callerOf(user, calleeId);
    const runId = await recordRun(callerId);
    const sibling = await createAgent(user);
    const theirs = await createAgent(other);
    for (const target of [sibling, theirs, randomUUID()]) {
      const response = await askToken(credential, { callee_agent_id: target, caller_run_id: runId });
      expectProblemShape(response, 403);
      expect(response.body.type).toMatch(/no-agent-call$/);
    }
  });

  it('refuses a run of the caller that is not running, or not its own (422)', async () => {
    const user = await signUpUser(ctx.app);
    const calleeId = await createAgent(user);
    const { callerId, credential } = await callerOf(user, calleeId);
    const finished = await recordRun(callerId, { status: 'succeeded' });
    const someoneElses = await recordRun(calleeId);
    for (const runId of [finished, someoneElses, 'no-such-run']) {
      const response = await askToken(credential, { callee_agent_id: calleeId, caller_run_id: runId });
      expectProblemShape(response, 422);
      expect(response.body.errors).toEqual([expect.objectContaining({ path: 'caller_run_id' })]);
    }
  });

  it('refuses a call that would close a cycle (409 agent-call-cycle), naming the chain', async () => {
    const user = await signUpUser(ctx.app);
    // A calls B, and B calls A: both edges are configured.
    const agentA = await createAgent(user);
    const { callerId: agentB, credential: bCredential } = await callerOf(user, agentA);
    const aServer = await createThroughApi(user, '/api/v1/mcp-servers/', agentServer(agentB));
    const aName = (await user.agent.get(`/api/v1/agents/${agentA}`)).body.name;
    await user.agent.patch(`/api/v1/agents/${agentA}`).send(agentBody({ mcp_server_ids: [aServer] }, { name: aName }));
    const aRun = await recordRun(agentA);
    const bRun = await recordRun(agentB, { calledBy: { agentId: agentA, runId: aRun } });
    const response = await askToken(bCredential, { callee_agent_id: agentA, caller_run_id: bRun });
    expectProblemShape(response, 409);
    expect(response.body.type).toMatch(/agent-call-cycle$/);
    expect(response.body.detail).toContain(`${agentA} → ${agentB} → ${agentA}`);
  });

  it('refuses a call deeper than MAX_AGENT_CALL_DEPTH (409 agent-call-depth)', async () => {
    const user = await signUpUser(ctx.app);
    const last = await createAgent(user);
    const { callerId: third, credential } = await callerOf(user, last);
    const first = await createAgent(user);
    const second = await createAgent(user);
    const firstRun = await recordRun(first);
    const secondRun = await recordRun(second, { calledBy: { agentId: first, runId: firstRun } });
    // first → second → third is MAX_DEPTH (2) calls deep; third calling on would be the third.
    const thirdRun = await recordRun(third, { calledBy: { agentId: second, runId: secondRun } });
    const response = await askToken(credential, { callee_agent_id: last, caller_run_id: thirdRun });
    expectProblemShape(response, 409);
    expect(response.body.type).toMatch(/agent-call-depth$/);
    expect(response.body.detail).toContain('MAX_AGENT_CALL_DEPTH');
    // One level up, the same call is within the bound.
    const shallowRun = await recordRun(third, { calledBy: { agentId: first, runId: firstRun } });
    expect((await askToken(credential, { callee_agent_id: last, caller_run_id: shallowRun })).status).toBe(201);
  });

  it('answers hostile bodies with a 4xx, never a 500', async () => {
    const user = await signUpUser(ctx.app);
    const calleeId = await createAgent(user);
    const { credential } = await callerOf(user, calleeId);
    const bodies = [
      {},
      { callee_agent_id: calleeId },
      { callee_agent_id: 'x', caller_run_id: 'r' },
      { callee_agent_id: calleeId, caller_run_id: 'a\u0000b' },
      { callee_agent_id: calleeId, caller_run_id: '\udc00' },
      { callee_agent_id: calleeId, caller_run_id: 'r'.repeat(200_000) },
      { callee_agent_id: calleeId, caller_run_id: 'r', extra: 1 },
      [],
    ];
    for (const body of bodies) {
      const response = await askToken(credential, body);
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
    }
    const huge = await askToken('x'.repeat(8000), { callee_agent_id: calleeId, caller_run_id: 'r' });
    expectProblemShape(huge, 401);
  });
});
