// Budgets across two engine replicas of one agent sharing one database: the run that spends a budget
// finishes and the next one, on either replica, ends at once with RUN_ERROR BUDGET_EXCEEDED; every run's
// usage is counted exactly once, whatever the race; raising the budget or a new period lets runs go
// again; a workspace budget stops the workspace's other agents; USD budgets count at the published price.
import { randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import { BUDGET_EXCEEDED_CODE, type TEngineBudgets } from '@agentplane/contracts';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { ConfigError } from '@agentplane/server-kit';
import { makeRunAgentInput, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { type AgentRow, notifyConfigChanged, writeConfigRow } from '../testing/engine-config-rows.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { runWithClient } from '../testing/run-with-client.js';
import { engineCredentialsFor, startDatabaseEngine, startFileEngine } from '../testing/test-engine.js';
import { WORKSPACE_STRIPES } from './budget-spend.js';

const NO_BUDGETS: TEngineBudgets = { agent: null, workspace: null, price: null };

let database: TestDatabase;
let agent: AgentRow;
let other: AgentRow;
let first: RunningEngine;
let second: RunningEngine;
let otherEngine: RunningEngine;
const versions = new Map<string, number>();

beforeAll(async () => {
  database = await createTestDatabase();
  const workspaceId = (await makeWorkspace(database.prisma)).id;
  agent = { agentId: (await makeAgent(database.prisma, workspaceId)).id, workspaceId };
  other = { agentId: (await makeAgent(database.prisma, workspaceId)).id, workspaceId };
  await Promise.all([publish(agent, NO_BUDGETS), publish(other, NO_BUDGETS)]);
  [first, second, otherEngine] = await Promise.all([
    startDatabaseEngine(database, agent.agentId),
    startDatabaseEngine(database, agent.agentId),
    startDatabaseEngine(database, other.agentId),
  ]);
  for (const engine of [first, second, otherEngine]) {
    await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
  }
});

afterAll(async () => {
  await Promise.all([first?.shutdown(), second?.shutdown(), otherEngine?.shutdown()]);
  await database?.drop();
});

beforeEach(async () => {
  await database.prisma.budgetSpend.deleteMany({});
  await Promise.all([publish(agent, NO_BUDGETS), publish(other, NO_BUDGETS)]);
});

/** Publishes the agent's config with `budgets`, as the manager does, and waits until its engines run it. */
async function publish(row: AgentRow, budgets: TEngineBudgets): Promise<void> {
  const version = (versions.get(row.agentId) ?? 0) + 1;
  versions.set(row.agentId, version);
  await writeConfigRow(database.prisma, row, version, { ...makeLlmEngineConfig(row), budgets });
  await notifyConfigChanged(database.prisma, row.agentId);
  const engines = row === agent ? [first, second] : [otherEngine];
  for (const engine of engines.filter((started) => started !== undefined)) {
    await waitUntil(
      async () =>
        ((await (await fetch(`${engine.url}/health`)).json()) as { config_version: number }).config_version === version,
      { what: `config version ${version} to be applied` },
    );
  }
}

async function run(engine: RunningEngine, content = 'count these five words') {
  const client = new HttpAgent({
    url: `${engine.url}/agent/run`,
    threadId: randomUUID(),
    initialMessages: [{ id: randomUUID(), role: 'user', content }],
  });
  const runId = randomUUID();
  const result = await runWithClient(client, { runId });
  return { runId, ...result };
}

type Usage = { total_tokens: number; input_tokens: number; output_tokens: number };

async function rowOf(runId: string, of = agent) {
  return database.prisma.agentRun.findUniqueOrThrow({ where: { agentId_id: { agentId: of.agentId, id: runId } } });
}

async function tokensOf(runId: string, of = agent): Promise<number> {
  return ((await rowOf(runId, of)).usage as Usage).total_tokens;
}

async function counted(scope: 'agent' | 'workspace', id: string): Promise<{ tokens: number; cost: number }> {
  const [sums] = await database.prisma.$queryRawUnsafe<{ tokens: string; cost: string }[]>(
    `SELECT coalesce(sum(tokens), 0)::text AS tokens, coalesce(sum(cost_usd), 0)::text AS cost
     FROM budget_spend WHERE scope = $1 AND scope_id = $2::uuid`,
    scope,
    id,
  );
  return { tokens: Number(sums?.tokens), cost: Number(sums?.cost) };
}

async function expectRefused(result: Awaited<ReturnType<typeof run>>, of = agent, scope = "agent's") {
  expect(result.types).toEqual(['RUN_STARTED', 'RUN_ERROR']);
  const error = result.last as { code?: string; message?: string };
  expect(error.code).toBe(BUDGET_EXCEEDED_CODE);
  expect(error.message).toContain(`The ${scope}`);
  const row = await rowOf(result.runId, of);
  // Recorded as a failed run, without a model call, with the code webhooks tell budget.exceeded by.
  expect(row).toMatchObject({ status: 'failed', error: error.message, errorCode: BUDGET_EXCEEDED_CODE, usage: null });
}

const tokenBudget = (limit: number, period: 'day' | 'month' = 'day') => ({ limit, unit: 'tokens' as const, period });

describe('a tokens budget', () => {
  it('stops the run after the one that spends it, on either replica, until the budget is raised', async () => {
    const firstRun = await run(first);
    expect(firstRun.types.at(-1)).toBe('RUN_FINISHED');
    expect((await rowOf(firstRun.runId)).errorCode).toBeNull();
    const perRun = await tokensOf(firstRun.runId);
    expect(perRun).toBeGreaterThan(0);
    // Counted without a budget too: a budget set mid-period sees what the period spent.
    expect((await counted('agent', agent.agentId)).tokens).toBe(perRun);

    // Room for two more runs, the third of them crossing the limit.
    await publish(agent, { ...NO_BUDGETS, agent: tokenBudget(3 * perRun - 1) });
    expect((await run(second)).types.at(-1)).toBe('RUN_FINISHED');
    expect((await run(first)).types.at(-1)).toBe('RUN_FINISHED');
    await expectRefused(await run(second));
    await expectRefused(await run(first));
    expect((await counted('agent', agent.agentId)).tokens).toBe(3 * perRun);
    expect((await counted('workspace', agent.workspaceId)).tokens).toBe(3 * perRun);

    await publish(agent, { ...NO_BUDGETS, agent: tokenBudget(10 * perRun) });
    expect((await run(second)).types.at(-1)).toBe('RUN_FINISHED');
    expect((await run(first)).types.at(-1)).toBe('RUN_FINISHED');
    expect((await counted('agent', agent.agentId)).tokens).toBe(5 * perRun);
  });

  it('counts every run of two racing replicas exactly once, and refuses runs once the spend reached it', async () => {
    await publish(agent, { ...NO_BUDGETS, agent: tokenBudget(1_000_000) });
    const raced = await Promise.all(Array.from({ length: 12 }, (_, index) => run(index % 2 === 0 ? first : second)));
    expect(raced.map((result) => result.types.at(-1))).toEqual(Array(12).fill('RUN_FINISHED'));
    const usages = await Promise.all(raced.map((result) => tokensOf(result.runId)));
    const sum = usages.reduce((total, tokens) => total + tokens, 0);
    expect((await counted('agent', agent.agentId)).tokens).toBe(sum);

    // One run's worth left: the runs that start before a racing run commits its spend may all finish;
    // every run is counted, and once the spend is in, both replicas refuse.
    await publish(agent, { ...NO_BUDGETS, agent: tokenBudget(sum + 1) });
    const atTheLimit = await Promise.all(
      Array.from({ length: 6 }, (_, index) => run(index % 2 === 0 ? first : second)),
    );
    const finished = atTheLimit.filter((result) => result.types.at(-1) === 'RUN_FINISHED');
    expect(finished.length).toBeGreaterThanOrEqual(1);
    for (const refused of atTheLimit.filter((result) => result.types.at(-1) !== 'RUN_FINISHED')) {
      await expectRefused(refused);
    }
    const finishedTokens = await Promise.all(finished.map((result) => tokensOf(result.runId)));
    expect((await counted('agent', agent.agentId)).tokens).toBe(sum + finishedTokens.reduce((a, b) => a + b, 0));
    await expectRefused(await run(first));
    await expectRefused(await run(second));
  });

  it("counts only the current UTC period: yesterday's spend does not stop a daily budget, this month's stops a monthly one", async () => {
    const spend = (day: string) =>
      database.prisma.$executeRawUnsafe(
        `INSERT INTO budget_spend (scope, scope_id, day, tokens) VALUES ('agent', $1::uuid, ${day}, 1000000)
       ON CONFLICT (scope, scope_id, day, stripe) DO UPDATE SET tokens = budget_spend.tokens + EXCLUDED.tokens`,
        agent.agentId,
      );
    const today = "(now() AT TIME ZONE 'UTC')::date";
    await spend(`${today} - 1`);
    await spend(`date_trunc('month', ${today})::date - 1`);
    await publish(agent, { ...NO_BUDGETS, agent: tokenBudget(1000) });
    expect((await run(first)).types.at(-1)).toBe('RUN_FINISHED');
    await publish(agent, { ...NO_BUDGETS, agent: tokenBudget(1000, 'month') });
    // Yesterday is in this month unless today is the 1st: then only the day before counts, which is not.
    const firstOfMonth = await database.prisma.$queryRawUnsafe<{ first: boolean }[]>(
      `SELECT extract(day FROM ${today}) = 1 AS first`,
    );
    if (firstOfMonth[0]?.first) expect((await run(second)).types.at(-1)).toBe('RUN_FINISHED');
    else await expectRefused(await run(second));
    await spend(today);
    await publish(agent, { ...NO_BUDGETS, agent: tokenBudget(1000) });
    await expectRefused(await run(first));
  });
});

describe('a USD budget', () => {
  it("counts each run's cost exactly at the price the manager published, and stops once it is spent", async () => {
    const price = { input_per_million_usd: 2.5, output_per_million_usd: 10 };
    await publish(agent, { ...NO_BUDGETS, price });
    const priced = await run(first);
    const usage = (await rowOf(priced.runId)).usage as Usage;
    // (input × 2.5 + output × 10) / 10⁶ in decimal: exactly what the counter holds.
    const micros = usage.input_tokens * 25 + usage.output_tokens * 100;
    expect((await counted('agent', agent.agentId)).cost).toBe(micros / 10_000_000);
    await publish(agent, {
      ...NO_BUDGETS,
      price,
      agent: { limit: (micros * 2) / 10_000_000, unit: 'usd', period: 'month' },
    });
    expect((await run(second)).types.at(-1)).toBe('RUN_FINISHED');
    await expectRefused(await run(first));
  });
});

describe('a workspace budget', () => {
  it("stops the workspace's other agents once the workspace's spend reached it", async () => {
    expect((await run(first)).types.at(-1)).toBe('RUN_FINISHED');
    await publish(other, { ...NO_BUDGETS, workspace: tokenBudget(1) });
    await expectRefused(await run(otherEngine), other, "workspace's");
  });

  it("adds each agent's runs to the workspace's stripe its id hashes to, and counts the sum of the stripes", async () => {
    const runs = [
      { of: agent, runId: (await run(first)).runId },
      { of: other, runId: (await run(otherEngine)).runId },
      { of: agent, runId: (await run(second)).runId },
    ];
    const expected = new Map<number, number>();
    for (const { of, runId } of runs) {
      const [row] = await database.prisma.$queryRawUnsafe<{ stripe: number }[]>(
        `SELECT hashtext($1::text) & ${WORKSPACE_STRIPES - 1} AS stripe`,
        of.agentId,
      );
      const stripe = row?.stripe ?? -1;
      expected.set(stripe, (expected.get(stripe) ?? 0) + (await tokensOf(runId, of)));
    }
    const rows = await database.prisma.budgetSpend.findMany({ where: { scope: 'workspace' } });
    expect(new Map(rows.map((row) => [row.stripe, Number(row.tokens)]))).toEqual(expected);
    // The agents' own rows stay whole, in stripe 0.
    expect(
      (await database.prisma.budgetSpend.findMany({ where: { scope: 'agent' } })).map((row) => row.stripe),
    ).toEqual([0, 0]);
    // A budget of exactly the stripes' sum is spent: the next run of either agent is refused.
    const total = [...expected.values()].reduce((sum, n) => sum + n, 0);
    await publish(other, { ...NO_BUDGETS, workspace: tokenBudget(total) });
    await expectRefused(await run(otherEngine), other, "workspace's");
  });
});

describe('background runs', () => {
  it('end failed with BUDGET_EXCEEDED', async () => {
    await database.prisma.$executeRawUnsafe(
      `INSERT INTO budget_spend (scope, scope_id, day, tokens) VALUES ('agent', $1::uuid, (now() AT TIME ZONE 'UTC')::date, 10)`,
      agent.agentId,
    );
    await publish(agent, { ...NO_BUDGETS, agent: tokenBudget(10) });
    const input = { ...makeRunAgentInput('hi'), runId: randomUUID(), threadId: randomUUID() };
    const response = await fetch(`${second.url}/agent/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
    });
    expect(response.status).toBe(202);
    await waitUntil(async () => (await rowOf(input.runId)).status === 'failed', { what: 'the background run to fail' });
    const events = await database.prisma.runEvent.findMany({
      where: { agentId: agent.agentId, runId: input.runId },
      orderBy: { seq: 'asc' },
    });
    expect(events.map((event) => JSON.parse(event.data) as { type: string; code?: string })).toEqual([
      expect.objectContaining({ type: 'RUN_STARTED' }),
      expect.objectContaining({ type: 'RUN_ERROR', code: BUDGET_EXCEEDED_CODE }),
    ]);
    expect(await rowOf(input.runId)).toMatchObject({
      usage: null,
      error: expect.stringContaining('budget'),
      errorCode: BUDGET_EXCEEDED_CODE,
    });
  });
});

describe("an engine's database role", () => {
  it("reads and adds to its own agent's and workspace's counters only", async () => {
    const stranger = await makeWorkspace(database.prisma);
    const credentials = await engineCredentialsFor(database, agent.agentId);
    const engineDb = await database.connectClient({ url: credentials.DATABASE_URL });
    await database.prisma.$executeRawUnsafe(
      `INSERT INTO budget_spend (scope, scope_id, day, tokens) VALUES ('agent', $1::uuid, current_date, 7), ('workspace', $2::uuid, current_date, 7)`,
      other.agentId,
      stranger.id,
    );
    const seen = await engineDb.query('SELECT scope, scope_id FROM budget_spend');
    expect(seen.rows).toEqual([]);
    const insert = (scope: string, id: string) =>
      engineDb.query(`INSERT INTO budget_spend (scope, scope_id, day, tokens) VALUES ($1, $2::uuid, current_date, 1)`, [
        scope,
        id,
      ]);
    await expect(insert('agent', other.agentId)).rejects.toThrow(/row-level security/);
    await expect(insert('workspace', stranger.id)).rejects.toThrow(/row-level security/);
    await insert('agent', agent.agentId);
    await insert('workspace', agent.workspaceId);
    expect((await engineDb.query('SELECT scope FROM budget_spend ORDER BY scope')).rows).toEqual([
      { scope: 'agent' },
      { scope: 'workspace' },
    ]);
  });
});

describe('file mode', () => {
  it('refuses to start on a config file with a budget and no DATABASE_URL to count it in', async () => {
    const config = { ...makeLlmEngineConfig(), budgets: { ...NO_BUDGETS, agent: tokenBudget(10) } };
    await expect(startFileEngine(config)).rejects.toThrow(ConfigError);
    await expect(startFileEngine(config)).rejects.toThrow(/budgets need DATABASE_URL/);
    const engine = await startFileEngine(makeLlmEngineConfig());
    await engine.shutdown();
  });
});
