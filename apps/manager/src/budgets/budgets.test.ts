// Budgets through the manager's HTTP API: set, read with the current period's spend, removed, by admins
// and owners; each write republishes the engine configs it changes (the agent's, or every agent of the
// workspace), with the price of the agent's model. Refused: bad bodies, unknown or foreign ids, other
// roles, no session.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TBudgetStatus, ZBudgetStatus, ZPublishedEngineConfig } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  addToWorkspace,
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { agentBody, createAgentThroughApi } from '../testing/resource-fixtures.js';

const MOCK_PRICE = { input_per_million_usd: 1, output_per_million_usd: 2 };

let ctx: ManagerTestContext;
let owner: SignedInUser;
let admin: SignedInUser;
let member: SignedInUser;
let viewer: SignedInUser;
let stranger: SignedInUser;
let agentId: string;
let strangersAgentId: string;

beforeAll(async () => {
  const pricesFile = join(mkdtempSync(join(tmpdir(), 'prices-')), 'prices.json');
  writeFileSync(pricesFile, JSON.stringify({ models: { 'mock/echo': MOCK_PRICE } }));
  ctx = await startManagerTestApp({ MODEL_PRICES_FILE: pricesFile });
  [owner, admin, member, viewer, stranger] = await Promise.all([
    signUpUser(ctx.app),
    signUpUser(ctx.app),
    signUpUser(ctx.app),
    signUpUser(ctx.app),
    signUpUser(ctx.app),
  ]);
  await addToWorkspace(owner, admin, 'admin');
  await addToWorkspace(owner, member, 'member');
  await addToWorkspace(owner, viewer, 'viewer');
  agentId = (await createAgentThroughApi(owner)).id;
  strangersAgentId = (await createAgentThroughApi(stranger)).id;
});

afterAll(() => ctx?.close());

// Members of the owner's workspace choose it: their own workspace is their default one.
const IN_OWNERS = () => ({ 'x-workspace-id': owner.workspaceId });
const agentBudgetUrl = (id = agentId) => `/api/v1/agents/${id}/budget`;
const workspaceBudgetUrl = (id = owner.workspaceId) => `/api/v1/workspaces/${id}/budget`;

async function publishedOf(id: string) {
  const response = await owner.agent.get(`/api/v1/agents/${id}/engine-config`);
  expect(response.status).toBe(200);
  return ZPublishedEngineConfig.parse(response.body);
}

async function addSpend(scope: 'agent' | 'workspace', scopeId: string, daysAgo: number, tokens: number, cost: string) {
  await ctx.database.prisma.$executeRawUnsafe(
    `INSERT INTO budget_spend (scope, scope_id, day, tokens, cost_usd)
     VALUES ($1, $2::uuid, (now() AT TIME ZONE 'UTC')::date - $3::int, $4, $5::numeric)
     ON CONFLICT (scope, scope_id, day, stripe) DO UPDATE
       SET tokens = budget_spend.tokens + EXCLUDED.tokens, cost_usd = budget_spend.cost_usd + EXCLUDED.cost_usd`,
    scope,
    scopeId,
    daysAgo,
    tokens,
    cost,
  );
}

function utcDayStart(daysAgo = 0): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - daysAgo));
}

describe("an agent's budget", () => {
  it('is set by an admin, published with the price of its model, and kept by a PATCH of the agent', async () => {
    const before = await publishedOf(agentId);
    const budget = { limit: 1000, unit: 'tokens', period: 'day', whatsapp_reply: 'Back tomorrow.' };
    const response = await admin.agent.put(agentBudgetUrl()).set(IN_OWNERS()).send(budget);
    expect(response.status).toBe(200);
    const status = ZBudgetStatus.parse(response.body);
    expect(status).toEqual({
      budget,
      spent: 0,
      period_start: utcDayStart().toISOString(),
      period_end: utcDayStart(-1).toISOString(),
    });
    const after = await publishedOf(agentId);
    expect(after.version).toBe(before.version + 1);
    expect(after.config.budgets).toEqual({ agent: budget, workspace: null, price: MOCK_PRICE });

    const patched = await owner.agent.patch(`/api/v1/agents/${agentId}`).send(agentBody({}, { name: 'renamed' }));
    expect(patched.status).toBe(200);
    expect((await publishedOf(agentId)).config.budgets.agent).toEqual(budget);
  });

  it("reads the current UTC period's spend from the engines' counters, in the budget's unit", async () => {
    const agent = (await createAgentThroughApi(owner)).id;
    await addSpend('agent', agent, 0, 40, '0.25');
    await addSpend('agent', agent, 1, 2, '0.5');
    await addSpend('agent', agent, 40, 1000, '9');
    await owner.agent.put(agentBudgetUrl(agent)).send({ limit: 100, unit: 'tokens', period: 'day' });
    const daily = ZBudgetStatus.parse((await viewer.agent.get(agentBudgetUrl(agent)).set(IN_OWNERS())).body);
    expect(daily.spent).toBe(40);
    await owner.agent.put(agentBudgetUrl(agent)).send({ limit: 5, unit: 'usd', period: 'month' });
    const monthly = ZBudgetStatus.parse((await owner.agent.get(agentBudgetUrl(agent))).body);
    // Yesterday is in this month unless today is the 1st; 40 days ago never is.
    expect(monthly.spent).toBe(utcDayStart().getUTCDate() === 1 ? 0.25 : 0.75);
    expect(monthly.period_start?.slice(8, 10)).toBe('01');
  });

  it('is removed with DELETE, and reads as nulls without one', async () => {
    const agent = (await createAgentThroughApi(owner)).id;
    expect((await owner.agent.get(agentBudgetUrl(agent))).body).toEqual({
      budget: null,
      spent: null,
      period_start: null,
      period_end: null,
    });
    await owner.agent.put(agentBudgetUrl(agent)).send({ limit: 10, unit: 'tokens', period: 'month' });
    const deleted = await owner.agent.delete(agentBudgetUrl(agent));
    expect(deleted.status).toBe(204);
    expect(((await owner.agent.get(agentBudgetUrl(agent))).body as TBudgetStatus).budget).toBeNull();
    expect((await publishedOf(agent)).config.budgets.agent).toBeNull();
  });
});

describe("a workspace's budget", () => {
  it('is published to every agent of the workspace, and removed from all of them', async () => {
    const others = await Promise.all([createAgentThroughApi(owner), createAgentThroughApi(owner)]);
    const budget = { limit: 12.5, unit: 'usd', period: 'month' };
    const response = await owner.agent.put(workspaceBudgetUrl()).send(budget);
    expect(response.status).toBe(200);
    expect(ZBudgetStatus.parse(response.body)).toMatchObject({ budget, spent: 0 });
    for (const agent of [agentId, ...others.map((other) => other.id)]) {
      expect((await publishedOf(agent)).config.budgets.workspace).toEqual(budget);
    }
    // Another workspace's agents are not touched.
    expect((await stranger.agent.get(`/api/v1/agents/${strangersAgentId}/engine-config`)).body.config.budgets).toEqual({
      agent: null,
      workspace: null,
      price: MOCK_PRICE,
    });
    await addSpend('workspace', owner.workspaceId, 0, 10, '1.5');
    expect(((await viewer.agent.get(workspaceBudgetUrl())).body as TBudgetStatus).spent).toBe(1.5);

    expect((await admin.agent.delete(workspaceBudgetUrl())).status).toBe(204);
    for (const agent of [agentId, ...others.map((other) => other.id)]) {
      expect((await publishedOf(agent)).config.budgets.workspace).toBeNull();
    }
  });

  it('reaches an agent created while it is being set (race)', async () => {
    const budget = { limit: 99, unit: 'tokens', period: 'day' };
    const [, ...created] = await Promise.all([
      owner.agent.put(workspaceBudgetUrl()).send(budget),
      ...Array.from({ length: 4 }, () => createAgentThroughApi(owner)),
    ]);
    for (const agent of created) expect((await publishedOf(agent.id)).config.budgets.workspace).toEqual(budget);
    await owner.agent.delete(workspaceBudgetUrl());
  });
});

describe('refused requests', () => {
  it.each([
    ['a zero limit', { limit: 0, unit: 'tokens', period: 'day' }, 'limit'],
    ['a negative limit', { limit: -5, unit: 'usd', period: 'day' }, 'limit'],
    ['a fraction of a token', { limit: 1.5, unit: 'tokens', period: 'day' }, 'limit'],
    ['an unknown unit', { limit: 5, unit: 'eur', period: 'day' }, 'unit'],
    ['an unknown period', { limit: 5, unit: 'usd', period: 'week' }, 'period'],
    ['a blank reply', { limit: 5, unit: 'usd', period: 'day', whatsapp_reply: '  ' }, 'whatsapp_reply'],
    ['an unknown field', { limit: 5, unit: 'usd', period: 'day', currency: 'usd' }, 'currency'],
    ['no limit', { unit: 'usd', period: 'day' }, 'limit'],
  ])('answers 422 for %s, naming the field, and changes nothing', async (_label, body, field) => {
    const before = await publishedOf(agentId);
    for (const url of [agentBudgetUrl(), workspaceBudgetUrl()]) {
      const response = await owner.agent.put(url).send(body);
      expectProblemShape(response, 422);
      expect(JSON.stringify(response.body.errors)).toContain(field);
    }
    expect((await publishedOf(agentId)).version).toBe(before.version);
  });

  it('answers 404 for an unknown agent or another workspace’s, 400 for an id that is not a UUID', async () => {
    const body = { limit: 5, unit: 'usd', period: 'day' };
    for (const id of [randomUUID(), strangersAgentId]) {
      expectProblemShape(await owner.agent.put(agentBudgetUrl(id)).send(body), 404);
      expectProblemShape(await owner.agent.get(agentBudgetUrl(id)), 404);
      expectProblemShape(await owner.agent.delete(agentBudgetUrl(id)), 404);
    }
    expectProblemShape(await owner.agent.get(agentBudgetUrl('not-a-uuid')), 400);
    expect(
      (await stranger.agent.get(`/api/v1/agents/${strangersAgentId}/engine-config`)).body.config.budgets.agent,
    ).toBeNull();
    for (const id of [randomUUID(), stranger.workspaceId]) {
      expectProblemShape(await owner.agent.put(workspaceBudgetUrl(id)).send(body), 404);
      expectProblemShape(await owner.agent.get(workspaceBudgetUrl(id)), 404);
    }
    const foreign = await ctx.database.prisma.workspace.findUniqueOrThrow({ where: { id: stranger.workspaceId } });
    expect(foreign.budget).toBeNull();
  });

  it('lets members and viewers read budgets but not set or remove them (403)', async () => {
    const body = { limit: 5, unit: 'usd', period: 'day' };
    for (const user of [member, viewer]) {
      expect((await user.agent.get(agentBudgetUrl()).set(IN_OWNERS())).status).toBe(200);
      expect((await user.agent.get(workspaceBudgetUrl())).status).toBe(200);
      expectProblemShape(await user.agent.put(agentBudgetUrl()).set(IN_OWNERS()).send(body), 403);
      expectProblemShape(await user.agent.delete(agentBudgetUrl()).set(IN_OWNERS()), 403);
      expectProblemShape(await user.agent.put(workspaceBudgetUrl()).send(body), 403);
      expectProblemShape(await user.agent.delete(workspaceBudgetUrl()), 403);
    }
    const workspace = await ctx.database.prisma.workspace.findUniqueOrThrow({ where: { id: owner.workspaceId } });
    expect(workspace.budget).toBeNull();
  });

  it.each([
    ['get', 'agent'],
    ['put', 'agent'],
    ['delete', 'agent'],
    ['get', 'workspace'],
    ['put', 'workspace'],
    ['delete', 'workspace'],
  ])('answers 401 to %s of the %s budget without a session', async (method, scope) => {
    const url = scope === 'agent' ? agentBudgetUrl() : workspaceBudgetUrl();
    const pending = request(ctx.app)[method as 'get' | 'put' | 'delete'](url);
    const response = await (method === 'put' ? pending.send({ limit: 5, unit: 'usd', period: 'day' }) : pending);
    expectProblemShape(response, 401);
  });
});
