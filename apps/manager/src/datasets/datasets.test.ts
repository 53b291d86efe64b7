// Datasets through the HTTP API on a real database: versions that keep reading what they held, items
// added, replaced and deleted, JSONL import (all or nothing) and export, and the operator's limits.
// Refused: bad bodies and files, unknown or foreign ids, viewers' writes, no session.
import { DATASET_ITEM_MAX_BYTES, type TDataset, type TDatasetItem, type TDatasetVersion } from '@agentplane/contracts';
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

const MAX_DATASETS = 40;
// Past one page of an export's reads (500 rows).
const MAX_ITEMS = 600;
const MAX_HISTORY = 2 * MAX_ITEMS;
const IMPORT_MAX_BYTES = 100_000;

let ctx: ManagerTestContext;
let owner: SignedInUser;
let member: SignedInUser;
let viewer: SignedInUser;
let stranger: SignedInUser;

beforeAll(async () => {
  ctx = await startManagerTestApp({
    MAX_DATASETS_PER_WORKSPACE: String(MAX_DATASETS),
    MAX_DATASET_ITEMS: String(MAX_ITEMS),
    DATASET_HISTORY_MAX_ROWS: String(MAX_HISTORY),
    DATASET_IMPORT_MAX_BYTES: String(IMPORT_MAX_BYTES),
  });
  [owner, member, viewer, stranger] = await Promise.all([
    signUpUser(ctx.app),
    signUpUser(ctx.app),
    signUpUser(ctx.app),
    signUpUser(ctx.app),
  ]);
  await addToWorkspace(owner, member, 'member');
  await addToWorkspace(owner, viewer, 'viewer');
});

afterAll(async () => {
  await ctx?.close();
});

const IN_OWNERS = () => ({ 'x-workspace-id': owner.workspaceId });

function item(question: string, reply?: string) {
  return {
    input: [{ role: 'user', content: question }],
    ...(reply === undefined ? {} : { expected: { reply } }),
  };
}

function jsonl(lines: unknown[]): string {
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}

async function createDataset(user: SignedInUser = owner, name = 'Support questions'): Promise<TDataset> {
  const response = await user.agent.post('/api/v1/datasets').set(IN_OWNERS()).send({ name });
  expect(response.status).toBe(201);
  return response.body as TDataset;
}

async function addItems(datasetId: string, items: unknown[]) {
  const response = await member.agent.post(`/api/v1/datasets/${datasetId}/items`).set(IN_OWNERS()).send({ items });
  expect(response.status).toBe(201);
  return response.body as { version: TDatasetVersion; items: TDatasetItem[] };
}

function importJsonl(datasetId: string, body: string, mode: 'append' | 'replace' = 'append', user = member) {
  return user.agent
    .post(`/api/v1/datasets/${datasetId}/import`)
    .query({ mode })
    .set(IN_OWNERS())
    .set('Content-Type', 'application/x-ndjson')
    .send(body);
}

async function itemsAt(datasetId: string, version?: number): Promise<TDatasetItem[]> {
  const response = await viewer.agent
    .get(`/api/v1/datasets/${datasetId}/items`)
    .query({ limit: 1000, ...(version === undefined ? {} : { version }) })
    .set(IN_OWNERS());
  expect(response.status).toBe(200);
  expect(Number(response.headers['x-total-count'])).toBe(response.body.length);
  return response.body as TDatasetItem[];
}

const questionsOf = (items: TDatasetItem[]) => items.map((each) => each.input[0]?.content);

describe('a dataset and its versions', () => {
  it('starts empty at version 1, and members rename it without a new version', async () => {
    const dataset = await createDataset(member);
    expect(dataset).toMatchObject({ name: 'Support questions', description: null, version: 1, item_count: 0 });
    const renamed = await member.agent
      .patch(`/api/v1/datasets/${dataset.id}`)
      .set(IN_OWNERS())
      .send({ name: 'Billing', description: 'Questions about invoices' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Billing', description: 'Questions about invoices', version: 1 });
    const listed = await viewer.agent.get('/api/v1/datasets').set(IN_OWNERS());
    expect(listed.body.map((each: TDataset) => each.id)).toContain(dataset.id);
    const versions = await viewer.agent.get(`/api/v1/datasets/${dataset.id}/versions`).set(IN_OWNERS());
    expect(versions.body).toEqual([{ version: 1, change: 'created', item_count: 0, created_at: expect.any(String) }]);
  });

  it('makes a version per change, and every earlier version keeps reading what it held', async () => {
    const dataset = await createDataset();
    const added = await addItems(dataset.id, [item('Where is my invoice?', 'In Billing'), item('How do I pay?')]);
    expect(added.version).toMatchObject({ version: 2, change: 'items_added', item_count: 2 });
    expect(added.items.map((each) => each.version)).toEqual([2, 2]);
    const [first, second] = added.items as [TDatasetItem, TDatasetItem];
    expect(first.expected).toEqual({ reply: 'In Billing' });
    expect(second.expected).toBeNull();

    const replaced = await member.agent
      .patch(`/api/v1/datasets/${dataset.id}/items/${first.id}`)
      .set(IN_OWNERS())
      .send(item('Where can I find my invoice?', 'Billing > Invoices'));
    expect(replaced.status).toBe(200);
    expect(replaced.body.version).toMatchObject({ version: 3, change: 'item_replaced', item_count: 2 });
    expect(replaced.body.item).toMatchObject({ id: first.id, version: 3 });

    const deleted = await member.agent.delete(`/api/v1/datasets/${dataset.id}/items/${second.id}`).set(IN_OWNERS());
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ version: 4, change: 'item_deleted', item_count: 1 });

    expect(questionsOf(await itemsAt(dataset.id, 1))).toEqual([]);
    expect(questionsOf(await itemsAt(dataset.id, 2))).toEqual(['Where is my invoice?', 'How do I pay?']);
    // The replaced item keeps its id and its place.
    expect(questionsOf(await itemsAt(dataset.id, 3))).toEqual(['Where can I find my invoice?', 'How do I pay?']);
    expect((await itemsAt(dataset.id, 3)).map((each) => each.id)).toEqual([first.id, second.id]);
    expect(questionsOf(await itemsAt(dataset.id))).toEqual(['Where can I find my invoice?']);

    const current = await viewer.agent.get(`/api/v1/datasets/${dataset.id}`).set(IN_OWNERS());
    expect(current.body).toMatchObject({ version: 4, item_count: 1 });
    const versions = await viewer.agent.get(`/api/v1/datasets/${dataset.id}/versions`).set(IN_OWNERS());
    expect(versions.body.map((each: TDatasetVersion) => [each.version, each.item_count])).toEqual([
      [4, 1],
      [3, 2],
      [2, 2],
      [1, 0],
    ]);
    expect(versions.headers['x-total-count']).toBe('4');
  });

  it('pages a version’s items in the order they were added, and names the version it read', async () => {
    const dataset = await createDataset();
    await addItems(
      dataset.id,
      Array.from({ length: 7 }, (_, index) => item(`q${index}`)),
    );
    const page = await viewer.agent
      .get(`/api/v1/datasets/${dataset.id}/items`)
      .query({ limit: 3, offset: 3 })
      .set(IN_OWNERS());
    expect(questionsOf(page.body)).toEqual(['q3', 'q4', 'q5']);
    expect(page.headers['x-total-count']).toBe('7');
    expect(page.headers['x-dataset-version']).toBe('2');
  });

  it('answers 404 for a version the dataset never had, and 400 for one that is not a number', async () => {
    const dataset = await createDataset();
    expectProblemShape(
      await viewer.agent.get(`/api/v1/datasets/${dataset.id}/items`).query({ version: 2 }).set(IN_OWNERS()),
      404,
    );
    for (const version of ['0', '-1', 'abc', '1.5', '2147483648', '99999999999999999999']) {
      expectProblemShape(
        await viewer.agent.get(`/api/v1/datasets/${dataset.id}/items`).query({ version }).set(IN_OWNERS()),
        400,
      );
    }
  });

  it('deletes a dataset with all its versions', async () => {
    const dataset = await createDataset();
    await addItems(dataset.id, [item('q')]);
    expect((await member.agent.delete(`/api/v1/datasets/${dataset.id}`).set(IN_OWNERS())).status).toBe(204);
    expectProblemShape(await viewer.agent.get(`/api/v1/datasets/${dataset.id}`).set(IN_OWNERS()), 404);
    expect(await ctx.database.prisma.datasetItem.count({ where: { datasetId: dataset.id } })).toBe(0);
    expect(await ctx.database.prisma.datasetVersion.count({ where: { datasetId: dataset.id } })).toBe(0);
  });
});

describe('items as the contract has them', () => {
  it('keeps AG-UI messages with tool calls, expected tool calls and metadata as given', async () => {
    const dataset = await createDataset();
    const full = {
      input: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          toolCalls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', toolCallId: 'c1', content: '18°C' },
        { role: 'user', content: 'And tomorrow?' },
      ],
      expected: { reply: 'Sunny', tool_calls: [{ name: 'weather', arguments: { city: 'Paris', day: 'tomorrow' } }] },
      metadata: { source: 'thread-42', tags: ['weather'] },
    };
    const added = await addItems(dataset.id, [full]);
    expect(added.items[0]).toMatchObject(full);
  });

  it.each([
    ['no messages', { input: [] }, 'items[0].input'],
    ['an unknown role', { input: [{ role: 'robot', content: 'x' }] }, 'items[0].input[0].role'],
    ['an unknown field', { ...item('q'), score: 1 }, 'items[0].score'],
    ['a tool message without its call id', { input: [{ role: 'tool', content: 'x' }] }, 'items[0].input[0].toolCallId'],
    [
      'expected arguments that are not an object',
      { ...item('q'), expected: { tool_calls: [{ name: 't', arguments: 'x' }] } },
      'items[0].expected.tool_calls[0].arguments',
    ],
  ])('refuses an item with %s (422 naming it)', async (_what, body, path) => {
    const dataset = await createDataset();
    const response = await member.agent
      .post(`/api/v1/datasets/${dataset.id}/items`)
      .set(IN_OWNERS())
      .send({ items: [body] });
    expectProblemShape(response, 422);
    expect(response.body.errors).toEqual(expect.arrayContaining([{ path, message: expect.any(String) }]));
  });

  it('refuses an item larger than DATASET_ITEM_MAX_BYTES as JSON, and a NUL or a lone surrogate in it', async () => {
    const dataset = await createDataset();
    const url = `/api/v1/datasets/${dataset.id}/items`;
    const half = 'é'.repeat(DATASET_ITEM_MAX_BYTES / 2);
    const tooBig = await member.agent
      .post(url)
      .set(IN_OWNERS())
      .send({ items: [item(half)] });
    expectProblemShape(tooBig, 422);
    expect(tooBig.body.errors[0]).toMatchObject({ path: 'items[0]', message: expect.stringContaining('bytes') });
    for (const rawEscape of ['\\u0000', '\\ud800']) {
      const response = await member.agent
        .post(url)
        .set(IN_OWNERS())
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ items: [item('@@')] }).replace('@@', rawEscape));
      expectProblemShape(response, 422);
    }
    const huge = await member.agent
      .post(url)
      .set(IN_OWNERS())
      .send({ items: [item('x'.repeat(2 * 1024 * 1024))] });
    expectProblemShape(huge, 413);
    expect((await viewer.agent.get(`/api/v1/datasets/${dataset.id}`).set(IN_OWNERS())).body.version).toBe(1);
  });
});

describe('JSONL import and export', () => {
  it('appends a file as one version, replaces every item with another, and exports any version to import again', async () => {
    const dataset = await createDataset();
    const appended = await importJsonl(dataset.id, jsonl([item('a', 'A'), item('b')]));
    expect(appended.status).toBe(201);
    expect(appended.body).toMatchObject({ version: 2, change: 'imported', item_count: 2 });
    const again = await importJsonl(dataset.id, `\n${jsonl([item('c')])}\r\n\n`);
    expect(again.body).toMatchObject({ version: 3, item_count: 3 });
    const replaced = await importJsonl(dataset.id, jsonl([item('z')]), 'replace');
    expect(replaced.body).toMatchObject({ version: 4, change: 'replaced_all', item_count: 1 });
    expect(questionsOf(await itemsAt(dataset.id))).toEqual(['z']);
    expect(questionsOf(await itemsAt(dataset.id, 3))).toEqual(['a', 'b', 'c']);

    const exported = await viewer.agent
      .get(`/api/v1/datasets/${dataset.id}/export`)
      .query({ version: 3 })
      .set(IN_OWNERS())
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        res.on('end', () => done(null, text));
      });
    expect(exported.status).toBe(200);
    expect(exported.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(exported.headers['x-dataset-version']).toBe('3');
    expect(exported.body).toBe(jsonl([item('a', 'A'), item('b'), item('c')]));

    const copy = await createDataset(owner, 'Copy');
    expect((await importJsonl(copy.id, exported.body as string)).status).toBe(201);
    expect(questionsOf(await itemsAt(copy.id))).toEqual(['a', 'b', 'c']);
  });

  it('exports a version with more items than one page of reads, in order', async () => {
    const dataset = await createDataset();
    const lines = Array.from({ length: MAX_ITEMS }, (_, index) => item(`q${index}`));
    await importJsonl(dataset.id, jsonl(lines));
    const exported = await viewer.agent.get(`/api/v1/datasets/${dataset.id}/export`).set(IN_OWNERS()).buffer(true);
    expect(exported.text).toBe(jsonl(lines));
  });

  it('imports nothing from a file with one bad line, and names each bad line', async () => {
    const dataset = await createDataset();
    const body = [
      JSON.stringify(item('fine')),
      '{"input": [',
      JSON.stringify({ input: [{ role: 'user', content: '@@' }] }).replace('@@', '\\u0000'),
      JSON.stringify({ input: [{ role: 'user', content: '@@' }] }).replace('@@', '\\udc00'),
      JSON.stringify({ ...item('q'), extra: true }),
      '[]',
    ].join('\n');
    const response = await importJsonl(dataset.id, body);
    expectProblemShape(response, 422);
    expect(response.body.errors).toEqual([
      { path: 'line 2', message: 'The line is not valid JSON' },
      { path: 'line 3: input[0].content', message: expect.stringContaining('NUL') },
      { path: 'line 4: input[0].content', message: expect.stringContaining('surrogate') },
      { path: 'line 5: extra', message: 'Unknown field "extra"' },
      { path: 'line 6', message: expect.any(String) },
    ]);
    expect(await itemsAt(dataset.id)).toEqual([]);
    expect((await viewer.agent.get(`/api/v1/datasets/${dataset.id}`).set(IN_OWNERS())).body.version).toBe(1);
  });

  it('refuses an empty file (422), a body that is not JSON Lines (415) and one past DATASET_IMPORT_MAX_BYTES (413)', async () => {
    const dataset = await createDataset();
    expectProblemShape(await importJsonl(dataset.id, '\n\n'), 422);
    const asJson = await member.agent
      .post(`/api/v1/datasets/${dataset.id}/import`)
      .set(IN_OWNERS())
      .send({ items: [item('q')] });
    expectProblemShape(asJson, 415);
    const asText = await member.agent
      .post(`/api/v1/datasets/${dataset.id}/import`)
      .set(IN_OWNERS())
      .set('Content-Type', 'text/plain')
      .send(jsonl([item('q')]));
    expectProblemShape(asText, 415);
    const big = jsonl(Array.from({ length: 20 }, () => item('x'.repeat(IMPORT_MAX_BYTES / 20))));
    expectProblemShape(await importJsonl(dataset.id, big), 413);
    expectProblemShape(await importJsonl(dataset.id, jsonl([item('q')]), 'bogus' as 'append'), 400);
    expect((await viewer.agent.get(`/api/v1/datasets/${dataset.id}`).set(IN_OWNERS())).body.version).toBe(1);
  });
});

describe('limits', () => {
  it('refuses a dataset past MAX_DATASETS_PER_WORKSPACE (409), counted per workspace', async () => {
    const loner = await signUpUser(ctx.app);
    const inLoners = { 'x-workspace-id': loner.workspaceId };
    const creates = await Promise.all(
      Array.from({ length: MAX_DATASETS + 2 }, (_, index) =>
        loner.agent
          .post('/api/v1/datasets')
          .set(inLoners)
          .send({ name: `d${index}` }),
      ),
    );
    expect(creates.filter((response) => response.status === 201)).toHaveLength(MAX_DATASETS);
    const refused = creates.filter((response) => response.status === 409);
    expect(refused).toHaveLength(2);
    expect(refused[0]?.body.type).toBe('urn:agentplane:problem:datasets-per-workspace');
  });

  it('refuses a change past MAX_DATASET_ITEMS (409) and keeps the version as it was', async () => {
    const dataset = await createDataset();
    await importJsonl(dataset.id, jsonl(Array.from({ length: MAX_ITEMS - 1 }, (_, index) => item(`q${index}`))));
    const refused = await importJsonl(dataset.id, jsonl([item('one'), item('two')]));
    expectProblemShape(refused, 409);
    expect(refused.body.type).toBe('urn:agentplane:problem:dataset-items');
    expect((await viewer.agent.get(`/api/v1/datasets/${dataset.id}`).set(IN_OWNERS())).body).toMatchObject({
      version: 2,
      item_count: MAX_ITEMS - 1,
    });
    // Replacing every item is measured by what is left, not by what was.
    expect((await importJsonl(dataset.id, jsonl([item('one'), item('two')]), 'replace')).status).toBe(201);
  });

  it('refuses a change past DATASET_HISTORY_MAX_ROWS revisions kept over the versions (409)', async () => {
    const dataset = await createDataset();
    const lines = jsonl(Array.from({ length: MAX_HISTORY / 2 }, (_, index) => item(`q${index}`)));
    expect((await importJsonl(dataset.id, lines, 'replace')).status).toBe(201);
    expect((await importJsonl(dataset.id, lines, 'replace')).status).toBe(201);
    const refused = await importJsonl(dataset.id, jsonl([item('one more')]), 'replace');
    expectProblemShape(refused, 409);
    expect(refused.body.type).toBe('urn:agentplane:problem:dataset-history');
    expect(await itemsAt(dataset.id, 2)).toHaveLength(MAX_HISTORY / 2);
  });
});

describe('changes at the same time', () => {
  it('orders two imports one after the other: consecutive versions, each with what the other left', async () => {
    const dataset = await createDataset();
    const [a, b] = await Promise.all([
      importJsonl(dataset.id, jsonl(Array.from({ length: 10 }, (_, index) => item(`a${index}`)))),
      importJsonl(dataset.id, jsonl(Array.from({ length: 10 }, (_, index) => item(`b${index}`)))),
    ]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect([a.body.version, b.body.version].sort()).toEqual([2, 3]);
    const [earlier, later] = a.body.version === 2 ? [a, b] : [b, a];
    expect([earlier.body.item_count, later.body.item_count]).toEqual([10, 20]);
    expect(await itemsAt(dataset.id, 2)).toHaveLength(10);
    expect(await itemsAt(dataset.id, 3)).toHaveLength(20);
  });

  it('lets only one of two adds that together pass MAX_DATASET_ITEMS through', async () => {
    const dataset = await createDataset();
    const half = Array.from({ length: MAX_ITEMS / 2 + 1 }, (_, index) => item(`q${index}`));
    const answers = await Promise.all([
      member.agent.post(`/api/v1/datasets/${dataset.id}/items`).set(IN_OWNERS()).send({ items: half }),
      member.agent.post(`/api/v1/datasets/${dataset.id}/items`).set(IN_OWNERS()).send({ items: half }),
    ]);
    expect(answers.map((response) => response.status).sort()).toEqual([201, 409]);
    expect(await itemsAt(dataset.id)).toHaveLength(MAX_ITEMS / 2 + 1);
  });
});

describe('who may do what', () => {
  it('lets viewers read but not write (403)', async () => {
    const dataset = await createDataset();
    const { items } = await addItems(dataset.id, [item('q')]);
    const itemId = items[0]?.id;
    const url = `/api/v1/datasets/${dataset.id}`;
    expect((await viewer.agent.get(`${url}/export`).set(IN_OWNERS())).status).toBe(200);
    const writes = [
      viewer.agent.post('/api/v1/datasets').set(IN_OWNERS()).send({ name: 'n' }),
      viewer.agent.patch(url).set(IN_OWNERS()).send({ name: 'n' }),
      viewer.agent.delete(url).set(IN_OWNERS()),
      viewer.agent
        .post(`${url}/items`)
        .set(IN_OWNERS())
        .send({ items: [item('q')] }),
      viewer.agent.patch(`${url}/items/${itemId}`).set(IN_OWNERS()).send(item('q')),
      viewer.agent.delete(`${url}/items/${itemId}`).set(IN_OWNERS()),
      importJsonl(dataset.id, jsonl([item('q')]), 'append', viewer),
    ];
    for (const response of await Promise.all(writes)) expectProblemShape(response, 403);
  });

  it('answers 401 without a session', async () => {
    const dataset = await createDataset();
    for (const response of await Promise.all([
      request(ctx.app).get('/api/v1/datasets'),
      request(ctx.app).get(`/api/v1/datasets/${dataset.id}/items`),
      request(ctx.app)
        .post(`/api/v1/datasets/${dataset.id}/import`)
        .set('Content-Type', 'application/x-ndjson')
        .send('{}'),
    ])) {
      expectProblemShape(response, 401);
    }
  });

  it('treats another workspace’s dataset, and another dataset’s item, as unknown (404)', async () => {
    const dataset = await createDataset();
    const { items } = await addItems(dataset.id, [item('q')]);
    const itemId = items[0]?.id;
    const theirs = await stranger.agent.post('/api/v1/datasets').send({ name: 'theirs' });
    const url = `/api/v1/datasets/${dataset.id}`;
    const answers = await Promise.all([
      stranger.agent.get(url),
      stranger.agent.get(`${url}/items`),
      stranger.agent.get(`${url}/versions`),
      stranger.agent.get(`${url}/export`),
      stranger.agent.patch(url).send({ name: 'mine' }),
      stranger.agent.delete(url),
      stranger.agent.post(`${url}/items`).send({ items: [item('q')] }),
      stranger.agent.delete(`${url}/items/${itemId}`),
      stranger.agent.delete(`/api/v1/datasets/${theirs.body.id}/items/${itemId}`),
      stranger.agent
        .post(`${url}/import`)
        .set('Content-Type', 'application/x-ndjson')
        .send(jsonl([item('q')])),
      member.agent.get(`/api/v1/datasets/${crypto.randomUUID()}`).set(IN_OWNERS()),
      member.agent.patch(`${url}/items/${crypto.randomUUID()}`).set(IN_OWNERS()).send(item('q')),
    ]);
    for (const response of answers) expectProblemShape(response, 404);
    expectProblemShape(await member.agent.get('/api/v1/datasets/not-a-uuid').set(IN_OWNERS()), 400);
    expect((await viewer.agent.get(url).set(IN_OWNERS())).body).toMatchObject({
      version: 2,
      name: 'Support questions',
    });
  });
});
