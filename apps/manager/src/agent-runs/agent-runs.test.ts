// GET /api/v1/agents/{id}/runs through HTTP, with runs written as the engine would write them (as the
// database owner here; the engine's run records are another feature's).
import { randomUUID } from 'node:crypto';
import { type TAgentRun, ZAgentRun } from '@agentplane/contracts';
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
import { createAgentThroughApi } from '../testing/resource-fixtures.js';

let ctx: ManagerTestContext;
let owner: SignedInUser;
let agentId: string;
const members: Record<'admin' | 'member' | 'viewer', SignedInUser> = {} as never;

type RunSeed = {
  id: string;
  status: string;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  error?: string;
  /** The column as the engine's recorder writes it; the column's default ([]) when absent. */
  guardrailActions?: unknown;
};

async function insertRun(forAgent: string, run: RunSeed) {
  await ctx.database.prisma.$executeRaw`
    INSERT INTO agent_runs (id, agent_id, thread_id, thread_key, issuer, subject, source, status, input, created_at,
      started_at, finished_at, error, usage)
    VALUES (${run.id}, ${forAgent}::uuid, 'thread-1', 'agui:key', 'https://id.example.com', 'alice', 'stream',
      ${run.status}::"RunStatus", ${JSON.stringify({ messages: [{ role: 'user', content: 'a secret question' }] })}::jsonb,
      ${run.createdAt}::timestamptz, ${run.startedAt ?? null}::timestamptz, ${run.finishedAt ?? null}::timestamptz,
      ${run.error ?? null}, ${JSON.stringify({ input_tokens: 12, output_tokens: 3 })}::jsonb)`;
  if (run.guardrailActions !== undefined) {
    await ctx.database.prisma.$executeRaw`
      UPDATE agent_runs SET guardrail_actions = ${JSON.stringify(run.guardrailActions)}::jsonb
      WHERE id = ${run.id} AND agent_id = ${forAgent}::uuid`;
  }
  await ctx.database.prisma.$executeRaw`
    INSERT INTO run_events (agent_id, run_id, seq, data)
    VALUES (${forAgent}::uuid, ${run.id}, 1, '{"type":"TEXT_MESSAGE_CONTENT","delta":"a secret answer"}')`;
}

beforeAll(async () => {
  ctx = await startManagerTestApp();
  owner = await signUpUser(ctx.app);
  for (const role of ['admin', 'member', 'viewer'] as const) {
    members[role] = await signUpUser(ctx.app);
    await addToWorkspace(owner, members[role], role);
  }
  agentId = (await createAgentThroughApi(owner)).id;
  await insertRun(agentId, {
    id: 'run-1',
    status: 'succeeded',
    createdAt: '2026-04-01T10:00:00Z',
    startedAt: '2026-04-01T10:00:01Z',
    finishedAt: '2026-04-01T10:00:03.500Z',
  });
  await insertRun(agentId, {
    id: 'run-2',
    status: 'failed',
    createdAt: '2026-04-02T10:00:00Z',
    startedAt: '2026-04-02T10:00:00Z',
    finishedAt: '2026-04-02T10:00:01Z',
    error: 'engine lost',
  });
  await insertRun(agentId, {
    id: 'run-3',
    status: 'running',
    createdAt: '2026-04-03T10:00:00Z',
    startedAt: '2026-04-03T10:00:00Z',
  });
});
afterAll(() => ctx?.close());

const listAs = (user: SignedInUser, query = '', id = agentId) =>
  user.agent.get(`/api/v1/agents/${id}/runs${query}`).set('x-workspace-id', owner.workspaceId);

const runsOf = (response: request.Response): TAgentRun[] => z.array(ZAgentRun).parse(response.body);

describe('GET /agents/{id}/runs', () => {
  it('lists the runs newest first with status, timings, duration, error and usage, and no conversation content', async () => {
    const response = await listAs(members.viewer);
    expect(response.status).toBe(200);
    expect(response.headers['x-total-count']).toBe('3');
    const runs = runsOf(response);
    expect(runs.map((run) => run.id)).toEqual(['run-3', 'run-2', 'run-1']);
    expect(runs[2]).toEqual({
      id: 'run-1',
      thread_id: 'thread-1',
      source: 'stream',
      status: 'succeeded',
      created_at: '2026-04-01T10:00:00.000Z',
      started_at: '2026-04-01T10:00:01.000Z',
      finished_at: '2026-04-01T10:00:03.500Z',
      duration_ms: 2500,
      // Inserted as before versions existed.
      agent_version: null,
      error: null,
      usage: { input_tokens: 12, output_tokens: 3 },
      caller_agent_id: null,
      caller_run_id: null,
      guardrail_actions: [],
      // Not sampled by online scoring (evaluations/online tests the scores).
      scores: [],
    });
    expect(runs[0]).toMatchObject({ status: 'running', finished_at: null, duration_ms: null });
    expect(runs[1]).toMatchObject({ error: 'engine lost', duration_ms: 1000 });
  });

  it('never carries the input, the events or the messages, for any role', async () => {
    for (const user of [owner, members.admin, members.member, members.viewer]) {
      const response = await listAs(user);
      expect(response.status).toBe(200);
      expect(response.text).not.toMatch(/secret/);
    }
  });

  it('shows who called (issuer and subject) to admins and owners only', async () => {
    for (const user of [owner, members.admin]) {
      expect(runsOf(await listAs(user))[0]).toMatchObject({ issuer: 'https://id.example.com', subject: 'alice' });
    }
    for (const user of [members.member, members.viewer]) {
      const [run] = runsOf(await listAs(user));
      expect(run).not.toHaveProperty('subject');
      expect(run).not.toHaveProperty('issuer');
    }
  });

  it('pages with limit and offset, and filters by status', async () => {
    const page = await listAs(owner, '?limit=1&offset=1');
    expect(runsOf(page).map((run) => run.id)).toEqual(['run-2']);
    expect(page.headers['x-total-count']).toBe('3');
    const failed = await listAs(members.viewer, '?status=failed');
    expect(runsOf(failed).map((run) => run.id)).toEqual(['run-2']);
    expect(failed.headers['x-total-count']).toBe('1');
  });

  it('shows the guardrail rules that fired, as recorded, and none for a record that is not a list', async () => {
    const fired = {
      guardrail_id: randomUUID(),
      guardrail: 'Customer data',
      rule: 'cards',
      kind: 'pii',
      position: 'output',
      action: 'redact',
      found: 'payment_card',
      at: '2026-04-05T10:00:02.000Z',
    };
    const agent = await createAgentThroughApi(owner);
    const list = (id: string) => owner.agent.get(`/api/v1/agents/${id}/runs`);
    await insertRun(agent.id, {
      id: 'guarded',
      status: 'succeeded',
      createdAt: '2026-04-05T10:00:00Z',
      guardrailActions: [fired],
    });
    await insertRun(agent.id, {
      id: 'odd-record',
      status: 'succeeded',
      createdAt: '2026-04-04T10:00:00Z',
      guardrailActions: { not: 'a list' },
    });
    const runs = runsOf(await list(agent.id));
    expect(runs.map((run) => [run.id, run.guardrail_actions])).toEqual([
      ['guarded', [fired]],
      ['odd-record', []],
    ]);
  });

  it('answers 400 for a bad query or id, 404 for an unknown agent or another workspace’s, 401 without a session', async () => {
    for (const query of ['?limit=0', '?limit=1001', '?offset=-1', '?status=done', '?limit=x']) {
      expectProblemShape(await listAs(owner, query), 400);
    }
    expectProblemShape(await listAs(owner, '', 'not-a-uuid'), 400);
    expectProblemShape(await listAs(owner, '', randomUUID()), 404);

    const stranger = await signUpUser(ctx.app);
    const theirs = await createAgentThroughApi(stranger);
    await insertRun(theirs.id, { id: 'their-run', status: 'succeeded', createdAt: '2026-04-04T10:00:00Z' });
    expectProblemShape(await listAs(owner, '', theirs.id), 404);
    // A member of another workspace names this one: not theirs to read.
    expectProblemShape(await listAs(stranger), 403);

    expectProblemShape(await request(ctx.app).get(`/api/v1/agents/${agentId}/runs`), 401);
  });
});
