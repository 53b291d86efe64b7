// Agent versions through HTTP: a version for every kind of change, masked views and diffs, rollback
// in one transaction, runs and usage by version, and the usual bad inputs, workspaces and roles.
import { randomUUID } from 'node:crypto';
import {
  SECRET_MASK_BULLETS,
  type TAgentVersion,
  ZAgent,
  ZAgentRun,
  ZAgentUsage,
  ZAgentVersion,
  ZAgentVersionDetail,
  ZAgentVersionDiff,
} from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { z } from 'zod';
import {
  addToWorkspace,
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import {
  agentBody,
  createAgentThroughApi,
  createGuardrailThroughApi,
  createThroughApi,
  whatsappBody,
} from '../testing/resource-fixtures.js';

let ctx: ManagerTestContext;
let owner: SignedInUser;
let stranger: SignedInUser;
const members: Record<'member' | 'viewer', SignedInUser> = {} as never;

const API_KEY = 'sk-live-model-key-0123456789';
const ROTATED_KEY = 'sk-live-rotated-key-9876543210';

beforeAll(async () => {
  ctx = await startManagerTestApp();
  owner = await signUpUser(ctx.app, { name: 'Olive Owner' });
  stranger = await signUpUser(ctx.app);
  for (const role of ['member', 'viewer'] as const) {
    members[role] = await signUpUser(ctx.app);
    await addToWorkspace(owner, members[role], role);
  }
});

afterAll(async () => {
  await ctx?.close();
});

const versionsOf = (agentId: string) => `/api/v1/agents/${agentId}/versions`;

async function listVersions(user: SignedInUser, agentId: string, query = ''): Promise<TAgentVersion[]> {
  const response = await user.agent.get(`${versionsOf(agentId)}${query}`).set('x-workspace-id', owner.workspaceId);
  expect(response.status).toBe(200);
  return z.array(ZAgentVersion).parse(response.body);
}

function llmAgent(instructions: string, integrationIds: string[] = [], extra: Record<string, unknown> = {}) {
  return agentBody(
    { integration_ids: integrationIds },
    {
      name: 'Support',
      agent: { model: { provider: 'mock', name: 'echo', apiKey: API_KEY }, instructions },
      ...extra,
    },
  );
}

async function patchAgent(user: SignedInUser, agentId: string, body: object) {
  const response = await user.agent.patch(`/api/v1/agents/${agentId}`).send(body);
  if (response.status !== 200) throw new Error(`PATCH: ${response.status} ${response.text}`);
  return ZAgent.parse(response.body);
}

async function createLlmAgent(
  instructions: string,
  integrationIds: string[] = [],
  extra: Record<string, unknown> = {},
) {
  const response = await owner.agent.post('/api/v1/agents/').send(llmAgent(instructions, integrationIds, extra));
  if (response.status !== 201) throw new Error(`POST: ${response.status} ${response.text}`);
  return ZAgent.parse(response.body);
}

/** What a failed write must leave as it was: the agent row, its published config and its versions. */
async function storedState(agentId: string) {
  const db = ctx.database.prisma;
  return {
    agent: await db.agent.findUnique({ where: { id: agentId }, select: { name: true, config: true, updatedAt: true } }),
    published: await db.engineConfig.findUnique({ where: { agentId }, select: { version: true, config: true } }),
    versions: await db.agentVersion.findMany({
      where: { agentId },
      select: { version: true },
      orderBy: { version: 'asc' },
    }),
  };
}

describe('a version for every change to what an agent runs', () => {
  it('records a create and a PATCH, with their author, cause and message, newest first', async () => {
    const created = await createLlmAgent('Be brief.', [], { version_message: 'first cut' });
    const updated = await patchAgent(owner, created.id, {
      ...llmAgent('Be very brief.'),
      version_message: '  shorter answers  ',
    });
    expect(updated.engine_config_version).toBe(2);
    const versions = await listVersions(owner, created.id);
    expect(versions.map(({ version, cause, message, current }) => ({ version, cause, message, current }))).toEqual([
      { version: 2, cause: 'update', message: 'shorter answers', current: true },
      { version: 1, cause: 'create', message: 'first cut', current: false },
    ]);
    expect(versions[0]?.author).toEqual({ id: owner.userId, email: owner.email, name: 'Olive Owner' });
  });

  it('records nothing for a PATCH that changes nothing the engine runs', async () => {
    const agent = await createLlmAgent('Same.');
    await patchAgent(owner, agent.id, llmAgent('Same.'));
    expect((await listVersions(owner, agent.id)).map((v) => v.version)).toEqual([1]);
  });

  it('records a resource PATCH for every agent using it, and a budget change', async () => {
    const integrationId = await createThroughApi(owner, '/api/v1/integrations/', whatsappBody());
    const first = await createLlmAgent('One.', [integrationId]);
    const second = await createLlmAgent('Two.', [integrationId]);
    const patched = await owner.agent.patch(`/api/v1/integrations/${integrationId}`).send(
      whatsappBody({
        config: { accessToken: 'EAAG-rotated-token', phoneNumberId: '1065550123', verifyToken: 'verify-me-123' },
      }),
    );
    expect(patched.status).toBe(200);
    for (const agent of [first, second]) {
      const [newest] = await listVersions(members.viewer, agent.id);
      expect(newest).toMatchObject({ version: 2, cause: 'resource', author: { id: owner.userId } });
    }
    const budget = await owner.agent
      .put(`/api/v1/agents/${first.id}/budget`)
      .send({ limit: 1000, unit: 'tokens', period: 'day' });
    expect(budget.status).toBe(200);
    expect((await listVersions(owner, first.id))[0]).toMatchObject({ version: 3, cause: 'budget' });
  });

  it('records the workspace defaults changing, and a change of an agent it calls', async () => {
    const callee = await createLlmAgent('Callee.');
    const serverId = await createThroughApi(owner, '/api/v1/mcp-servers/', {
      name: 'calls-callee',
      mcp_server: { name: 'helper', transport: 'agent', agent_id: callee.id },
    });
    const caller = await createAgentThroughApi(owner, { mcp_server_ids: [serverId] });
    // The callee's new name is in the caller's config: the caller gets a version too.
    await patchAgent(owner, callee.id, { ...llmAgent('Callee.'), name: 'Renamed callee' });
    expect((await listVersions(owner, caller.id))[0]).toMatchObject({ version: 2, cause: 'callee' });
    expect((await listVersions(owner, callee.id))[0]).toMatchObject({ version: 2, cause: 'update' });

    const guardrailId = await createGuardrailThroughApi(owner);
    const defaults = await owner.agent
      .patch(`/api/v1/workspaces/${owner.workspaceId}`)
      .send({ name: 'Versioned', default_guardrail_ids: [guardrailId] });
    expect(defaults.status).toBe(200);
    expect((await listVersions(owner, caller.id))[0]).toMatchObject({ version: 3, cause: 'guardrails' });
    // Back to none, so that the other tests' agents run without it.
    await owner.agent
      .patch(`/api/v1/workspaces/${owner.workspaceId}`)
      .send({ name: 'Versioned', default_guardrail_ids: [] });
  });

  it('numbers the versions of concurrent PATCHes one after the other, each with its own snapshot', async () => {
    const agent = await createLlmAgent('v1');
    const written = Array.from({ length: 6 }, (_, index) => `concurrent ${index}`);
    await Promise.all(written.map((instructions) => patchAgent(owner, agent.id, llmAgent(instructions))));
    const versions = await ctx.database.prisma.agentVersion.findMany({
      where: { agentId: agent.id },
      orderBy: { version: 'asc' },
      select: { version: true, snapshot: true },
    });
    expect(versions.map((row) => Number(row.version))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const instructions = versions.map(
      (row) => (row.snapshot as { spec: { agent: { instructions: string } } }).spec.agent.instructions,
    );
    expect(new Set(instructions.slice(1))).toEqual(new Set(written));
    // The newest version is what is published.
    const published = await ctx.database.prisma.engineConfig.findUnique({ where: { agentId: agent.id } });
    expect(Number(published?.version)).toBe(7);
    expect(JSON.stringify(published?.config)).toContain(JSON.stringify(instructions[6]));
  });

  it('pages with limit and offset and counts in X-Total-Count', async () => {
    const agent = await createLlmAgent('v1');
    await patchAgent(owner, agent.id, llmAgent('v2'));
    await patchAgent(owner, agent.id, llmAgent('v3'));
    const response = await owner.agent.get(`${versionsOf(agent.id)}?limit=1&offset=1`);
    expect(response.status).toBe(200);
    expect(response.headers['x-total-count']).toBe('3');
    expect(
      z
        .array(ZAgentVersion)
        .parse(response.body)
        .map((v) => v.version),
    ).toEqual([2]);
  });
});

describe('secrets never leave in a version or a diff', () => {
  it('masks the agent and resource secrets of a version for every role, the owner included', async () => {
    const integrationId = await createThroughApi(owner, '/api/v1/integrations/', whatsappBody());
    const agent = await createLlmAgent('Masked.', [integrationId]);
    const response = await owner.agent.get(`${versionsOf(agent.id)}/1`);
    expect(response.status).toBe(200);
    const version = ZAgentVersionDetail.parse(response.body);
    expect(version.spec.agent).toMatchObject({ model: { apiKey: SECRET_MASK_BULLETS } });
    expect(version.engine_config.integrations[0]?.config).toMatchObject({ accessToken: SECRET_MASK_BULLETS });
    expect(response.text).not.toContain(API_KEY);
    expect(response.text).not.toContain('EAAG-secret-access-token');
    expect(response.text).not.toContain('enc:v1:');
  });

  it('shows a changed secret as a replace of the mask by the mask, and other changes as they are', async () => {
    const agent = await createLlmAgent('Before.');
    await patchAgent(owner, agent.id, {
      ...llmAgent('After.'),
      agent: { model: { provider: 'mock', name: 'echo', apiKey: ROTATED_KEY }, instructions: 'After.' },
    });
    const response = await members.viewer.agent
      .get(`${versionsOf(agent.id)}/2/diff?against=1`)
      .set('x-workspace-id', owner.workspaceId);
    expect(response.status).toBe(200);
    const diff = ZAgentVersionDiff.parse(response.body);
    expect(diff).toMatchObject({ agent_id: agent.id, from: 1, to: 2 });
    expect(diff.patch).toEqual(
      expect.arrayContaining([
        { op: 'replace', path: '/spec/agent/instructions', value: 'After.' },
        { op: 'replace', path: '/spec/agent/model/apiKey', value: SECRET_MASK_BULLETS },
        { op: 'replace', path: '/engine_config/agent/config/model/apiKey', value: SECRET_MASK_BULLETS },
      ]),
    );
    for (const secret of [API_KEY, ROTATED_KEY, 'enc:v1:', 'secret:']) expect(response.text).not.toContain(secret);
  });

  it('shows an unchanged secret as no operation at all', async () => {
    const agent = await createLlmAgent('Same key.');
    await patchAgent(owner, agent.id, llmAgent('Same key, new words.'));
    const diff = ZAgentVersionDiff.parse((await owner.agent.get(`${versionsOf(agent.id)}/2/diff?against=1`)).body);
    expect(diff.patch.filter((operation) => operation.path.endsWith('apiKey'))).toEqual([]);
  });
});

describe('POST /agents/{id}/rollback', () => {
  it("publishes the version's spec as a new version, and leaves the shared resource's config as it is now", async () => {
    const integrationId = await createThroughApi(owner, '/api/v1/integrations/', whatsappBody());
    const agent = await createLlmAgent('Good prompt.', [integrationId]);
    await patchAgent(owner, agent.id, llmAgent('Bad prompt.', [integrationId]));
    await owner.agent.patch(`/api/v1/integrations/${integrationId}`).send(
      whatsappBody({
        config: { accessToken: 'EAAG-newer-token', phoneNumberId: '1065550123', verifyToken: 'verify-me-123' },
      }),
    );
    const response = await members.member.agent
      .post(`/api/v1/agents/${agent.id}/rollback`)
      .set('x-workspace-id', owner.workspaceId)
      .send({ version: 1, message: 'undo the bad prompt' });
    expect(response.status).toBe(200);
    const rolledBack = ZAgent.parse(response.body);
    expect(rolledBack.engine_config_version).toBe(4);
    expect(rolledBack.agent).toMatchObject({ instructions: 'Good prompt.' });
    // The secret came back opened and sealed again: the engine runs with the real key.
    expect(rolledBack.agent).toMatchObject({ model: { apiKey: API_KEY } });
    expect(rolledBack.engine_config.integrations[0]?.config).toMatchObject({ accessToken: 'EAAG-newer-token' });
    const [newest] = await listVersions(owner, agent.id);
    expect(newest).toMatchObject({
      version: 4,
      cause: 'rollback',
      rolled_back_from: 1,
      message: 'undo the bad prompt',
      author: { id: members.member.userId },
      current: true,
    });
    // The diff shows the prompt restored and the resource not rolled back.
    const diff = ZAgentVersionDiff.parse((await owner.agent.get(`${versionsOf(agent.id)}/4/diff?against=1`)).body);
    expect(diff.patch).toEqual([
      { op: 'replace', path: '/engine_config/integrations/0/config/accessToken', value: SECRET_MASK_BULLETS },
    ]);
  });

  it('is a new version even when the version restored is what is published now', async () => {
    const agent = await createLlmAgent('Stable.');
    const response = await owner.agent.post(`/api/v1/agents/${agent.id}/rollback`).send({ version: 1 });
    expect(response.status).toBe(200);
    expect((await listVersions(owner, agent.id)).map((v) => [v.version, v.cause])).toEqual([
      [2, 'rollback'],
      [1, 'create'],
    ]);
  });

  it('answers 422 and writes nothing when the version references a resource deleted since', async () => {
    const integrationId = await createThroughApi(owner, '/api/v1/integrations/', whatsappBody());
    const agent = await createLlmAgent('With it.', [integrationId]);
    await patchAgent(owner, agent.id, llmAgent('Without it.'));
    expect((await owner.agent.delete(`/api/v1/integrations/${integrationId}`)).status).toBe(204);
    const before = await storedState(agent.id);
    const response = await owner.agent.post(`/api/v1/agents/${agent.id}/rollback`).send({ version: 1 });
    expectProblemShape(response, 422);
    expect(JSON.stringify(response.body)).toContain(integrationId);
    expect(await storedState(agent.id)).toEqual(before);
  });

  it('leaves the agent, its engine_config and its versions as they were when the publish fails midway', async () => {
    const agent = await createLlmAgent('Original.');
    await patchAgent(owner, agent.id, llmAgent('Changed.'));
    const before = await storedState(agent.id);
    // The last statement of the transaction fails: the agent row and engine_configs were already written.
    await ctx.database.prisma.$executeRawUnsafe(`
      CREATE FUNCTION refuse_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'injected failure'; END $$`);
    await ctx.database.prisma.$executeRawUnsafe(
      'CREATE TRIGGER refuse_version BEFORE INSERT ON agent_versions FOR EACH ROW EXECUTE FUNCTION refuse_version()',
    );
    try {
      const response = await owner.agent.post(`/api/v1/agents/${agent.id}/rollback`).send({ version: 1 });
      expectProblemShape(response, 500);
    } finally {
      await ctx.database.prisma.$executeRawUnsafe('DROP TRIGGER refuse_version ON agent_versions');
      await ctx.database.prisma.$executeRawUnsafe('DROP FUNCTION refuse_version()');
    }
    expect(await storedState(agent.id)).toEqual(before);
  });
});

describe('runs and usage carry the version they ran with', () => {
  it('lists each run with its version, and sums usage per version with group_by=version', async () => {
    const agent = await createLlmAgent('Counted.');
    await patchAgent(owner, agent.id, llmAgent('Counted again.'));
    const runs: [string, number | null][] = [
      ['old', null],
      ['r1', 1],
      ['r2', 2],
      ['r3', 2],
    ];
    for (const [id, version] of runs) {
      await ctx.database.prisma.$executeRaw`
        INSERT INTO agent_runs (id, agent_id, thread_id, thread_key, source, status, usage, agent_version)
        VALUES (${id}, ${agent.id}::uuid, 't', 'k', 'stream', 'succeeded',
          ${JSON.stringify({ input_tokens: 10, output_tokens: 1 })}::jsonb, ${version}::bigint)`;
    }
    const listed = await members.viewer.agent
      .get(`/api/v1/agents/${agent.id}/runs`)
      .set('x-workspace-id', owner.workspaceId);
    expect(listed.status).toBe(200);
    const byId = new Map(
      z
        .array(ZAgentRun)
        .parse(listed.body)
        .map((run) => [run.id, run.agent_version]),
    );
    expect(Object.fromEntries(byId)).toEqual({ old: null, r1: 1, r2: 2, r3: 2 });

    const usage = await members.viewer.agent
      .get(`/api/v1/agents/${agent.id}/usage?group_by=version`)
      .set('x-workspace-id', owner.workspaceId);
    expect(usage.status).toBe(200);
    const report = ZAgentUsage.parse(usage.body);
    expect(report.totals.runs).toBe(4);
    expect(report.versions?.map((v) => [v.agent_version, v.runs, v.input_tokens])).toEqual([
      [2, 2, 20],
      [1, 1, 10],
      [null, 1, 10],
    ]);
    const plain = ZAgentUsage.parse((await owner.agent.get(`/api/v1/agents/${agent.id}/usage`)).body);
    expect(plain.versions).toBeUndefined();
    expectProblemShape(await owner.agent.get(`/api/v1/agents/${agent.id}/usage?group_by=agent`), 400);
  });
});

describe('bad requests, other workspaces and roles', () => {
  let agentId: string;
  beforeAll(async () => {
    agentId = (await createLlmAgent('Guarded.')).id;
  });

  it('needs a session', async () => {
    expectProblemShape(await request(ctx.app).get(versionsOf(agentId)), 401);
    expectProblemShape(await request(ctx.app).post(`/api/v1/agents/${agentId}/rollback`).send({ version: 1 }), 401);
  });

  it('lets viewers read but not roll back', async () => {
    const inWorkspace = { 'x-workspace-id': owner.workspaceId };
    expect((await members.viewer.agent.get(`${versionsOf(agentId)}/1`).set(inWorkspace)).status).toBe(200);
    const rollback = members.viewer.agent.post(`/api/v1/agents/${agentId}/rollback`).set(inWorkspace);
    expectProblemShape(await rollback.send({ version: 1 }), 403);
    expect((await listVersions(owner, agentId)).length).toBe(1);
  });

  it("answers 404 for another workspace's agent, an unknown agent and an unknown version", async () => {
    for (const path of [versionsOf(agentId), `${versionsOf(agentId)}/1`, `${versionsOf(agentId)}/1/diff?against=1`]) {
      expectProblemShape(await stranger.agent.get(path), 404);
    }
    expectProblemShape(await stranger.agent.post(`/api/v1/agents/${agentId}/rollback`).send({ version: 1 }), 404);
    expectProblemShape(await owner.agent.get(versionsOf(randomUUID())), 404);
    expectProblemShape(await owner.agent.get(`${versionsOf(agentId)}/99`), 404);
    expectProblemShape(await owner.agent.get(`${versionsOf(agentId)}/1/diff?against=99`), 404);
    expectProblemShape(await owner.agent.post(`/api/v1/agents/${agentId}/rollback`).send({ version: 99 }), 404);
  });

  it('answers 400 for malformed ids, version numbers and queries', async () => {
    for (const path of [
      versionsOf('not-a-uuid'),
      `${versionsOf(agentId)}/0`,
      `${versionsOf(agentId)}/1e3`,
      `${versionsOf(agentId)}/-1`,
      `${versionsOf(agentId)}/${'9'.repeat(40)}`,
      `${versionsOf(agentId)}/1/diff`,
      `${versionsOf(agentId)}/1/diff?against=x`,
      `${versionsOf(agentId)}?limit=0`,
    ]) {
      expectProblemShape(await owner.agent.get(path), 400);
    }
  });

  it('answers 422 for bad rollback bodies and bad version messages, never 500', async () => {
    const rollback = `/api/v1/agents/${agentId}/rollback`;
    for (const body of [
      {},
      { version: 0 },
      { version: 1.5 },
      { version: '1' },
      { version: 1, extra: true },
      { version: 1, message: '' },
      { version: 1, message: 'x'.repeat(1001) },
      { version: 1, message: 'lone \ud800 surrogate' },
    ]) {
      const response = await owner.agent.post(rollback).send(body);
      expect([400, 422]).toContain(response.status);
      expectProblemShape(response, response.status);
    }
    const nul = await owner.agent.post(rollback).send({ version: 1, message: 'nul \u0000 here' });
    expect([400, 422]).toContain(nul.status);
    const badMessage = await owner.agent
      .patch(`/api/v1/agents/${agentId}`)
      .send({ ...llmAgent('Guarded.'), version_message: 'y'.repeat(5000) });
    expectProblemShape(badMessage, 422);
    expect((await listVersions(owner, agentId)).length).toBe(1);
  });
});
