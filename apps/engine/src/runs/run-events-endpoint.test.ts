// GET /agent/runs/{id}/events: the caller's run's stored events as JSON pages, the same events in the
// same order as the SSE replay of the run, each with the time it was stored; another caller's run, an
// unknown one, a bad id or query, and a request without a valid token are refused before any read.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { makeRunAgentInput, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { makeCustomEngineConfig } from '../testing/module-engine-configs.js';
import { startTestIssuer, type TestIssuer } from '../testing/oidc-issuer.js';
import { readSseFrames } from '../testing/read-sse-frames.js';
import { startDatabaseEngine } from '../testing/test-engine.js';

const FIXTURES = fileURLToPath(new URL('../agents/custom/fixtures', import.meta.url));

let database: TestDatabase;
let issuer: TestIssuer;
let engine: RunningEngine;
let ada: string;
let runId: string;

type EventsPage = {
  status: string;
  events: { seq: number; stored_at: string; event: { type: string } }[];
  next_after: number | null;
};

/** `id` as it goes in the path: encoded, unless `raw` (bytes no encoder would write). */
function readEvents(id: string, query = '', token: string | null = ada, raw = false) {
  return fetch(`${engine.url}/agent/runs/${raw ? id : encodeURIComponent(id)}/events${query}`, {
    headers: token === null ? {} : { Authorization: `Bearer ${token}` },
  });
}

async function expectProblem(response: Response, status: number) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
}

beforeAll(async () => {
  database = await createTestDatabase();
  issuer = await startTestIssuer();
  const workspace = await makeWorkspace(database.prisma);
  const agent = await makeAgent(database.prisma, workspace.id);
  const row = { agentId: agent.id, workspaceId: workspace.id };
  await writeConfigRow(database.prisma, row, 1, makeCustomEngineConfig('slow-agent.js:createSlowAgent', row));
  engine = await startDatabaseEngine(database, agent.id, {
    ENGINE_AGENTS_DIR: FIXTURES,
    ENGINE_AUTH: 'oidc',
    ENGINE_OIDC_ISSUER: issuer.issuer,
    ENGINE_OIDC_AUDIENCE: issuer.audience,
  });
  await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
  ada = await issuer.sign({ sub: 'ada' });
  // Four deltas: eight events in all, RUN_STARTED to RUN_FINISHED.
  const body = { ...makeRunAgentInput('4 0'), threadId: `thread-${randomUUID()}`, runId: `run-${randomUUID()}` };
  runId = body.runId;
  await readSseFrames(
    await fetch(`${engine.url}/agent/run`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ada}` },
      body: JSON.stringify(body),
    }),
  );
});

afterAll(async () => {
  await engine?.shutdown();
  await issuer?.close();
  await database?.drop();
});

describe('GET /agent/runs/{id}/events', () => {
  it("gives the caller's finished run's events as its replay sends them, each with when it was stored", async () => {
    const replay = await readSseFrames(
      await fetch(`${engine.url}/agent/runs/${runId}/stream`, { headers: { Authorization: `Bearer ${ada}` } }),
    );
    const response = await readEvents(runId);
    expect(response.status).toBe(200);
    const page = (await response.json()) as EventsPage;
    expect(page.status).toBe('succeeded');
    expect(page.next_after).toBeNull();
    expect(page.events.map(({ seq }) => `${runId}:${seq}`)).toEqual(replay.map((frame) => frame.id));
    expect(page.events.map(({ event }) => event)).toEqual(replay.map((frame) => JSON.parse(frame.data)));
    expect(page.events[0]?.event.type).toBe('RUN_STARTED');
    expect(page.events.at(-1)?.event.type).toBe('RUN_FINISHED');
    const times = page.events.map(({ stored_at }) => Date.parse(stored_at));
    expect(times.every((time, i) => Number.isFinite(time) && time >= (times[i - 1] ?? 0))).toBe(true);
  });

  it('pages with after and limit, saying where the next page starts', async () => {
    const first = (await (await readEvents(runId, '?limit=5')).json()) as EventsPage;
    expect(first.events.map(({ seq }) => seq)).toEqual([1, 2, 3, 4, 5]);
    expect(first.next_after).toBe(5);
    const rest = (await (await readEvents(runId, `?after=${first.next_after}&limit=5`)).json()) as EventsPage;
    expect(rest.events.map(({ seq }) => seq)).toEqual([6, 7, 8]);
    expect(rest.next_after).toBeNull();
  });

  it("answers 404 for another subject's run and an unknown one", async () => {
    const bob = await issuer.sign({ sub: 'bob' });
    await expectProblem(await readEvents(runId, '', bob), 404);
    await expectProblem(await readEvents(`run-${randomUUID()}`), 404);
  });

  it('answers 401 without a token or with a bad one', async () => {
    await expectProblem(await readEvents(runId, '', null), 401);
    await expectProblem(await readEvents(runId, '', 'not-a-token'), 401);
  });

  it('answers 400 for a bad run id or query: NUL, a lone surrogate, a huge id, bad numbers, unknown fields', async () => {
    for (const id of ['a%00b', '%ED%A0%80', 'x'.repeat(10_000)])
      await expectProblem(await readEvents(id, '', ada, true), 400);
    for (const query of [
      '?limit=0',
      '?limit=501',
      '?limit=-1',
      '?after=x',
      '?after=1e3',
      '?after=1&after=2',
      '?page=2',
    ]) {
      await expectProblem(await readEvents(runId, query), 400);
    }
  });
});
