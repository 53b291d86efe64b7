// Outgoing webhooks end to end: endpoints through the HTTP API, events produced by the database
// triggers (agent_runs and thread_interrupts written as an engine writes them), and the delivery
// worker posting to real receivers on loopback, verified with standardwebhooks' own Webhook.verify.
// Refused: bad bodies, unknown or foreign ids, other roles, no session, addresses the egress policy refuses.
import { randomUUID } from 'node:crypto';
import {
  type TWebhookDelivery,
  type TWebhookEndpointWithSecret,
  WEBHOOK_MAX_PENDING_DELIVERIES,
  ZWebhookDelivery,
} from '@agentplane/contracts';
import { ENGINE_GROUP_ROLE } from '@agentplane/db';
import { createLogger } from '@agentplane/server-kit';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
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
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.js';
import { startWebhookDelivery } from './start-webhook-delivery.js';
import type { WebhookWorker } from './webhook-worker.js';

// Receivers listen on 127.0.0.2, the one address the operator allows: 127.0.0.1 (and `localhost`,
// which resolves to it) stays refused, at write time as a literal and at connect time as a name.
const RECEIVER_HOST = '127.0.0.2';

let ctx: ManagerTestContext;
let worker: WebhookWorker;
let owner: SignedInUser;
let admin: SignedInUser;
let member: SignedInUser;
let viewer: SignedInUser;
let stranger: SignedInUser;
let agentId: string;
let strangersAgentId: string;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  ctx = await startManagerTestApp({
    EGRESS_ALLOW: RECEIVER_HOST,
    MAX_WEBHOOKS_PER_WORKSPACE: '12',
    WEBHOOK_TIMEOUT_MS: '300',
    WEBHOOK_RETRY_BASE_MS: '20',
    WEBHOOK_POLL_MS: '20',
    WEBHOOK_LEASE_MS: '5000',
  });
  worker = startWebhookDelivery({
    db: ctx.database.prisma,
    config: ctx.config,
    logger: createLogger({ name: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
  });
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

afterAll(async () => {
  await worker?.stop();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await ctx?.close();
});

const IN_OWNERS = () => ({ 'x-workspace-id': owner.workspaceId });

async function newReceiver(host = RECEIVER_HOST): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver(host);
  receivers.push(receiver);
  return receiver;
}

function endpointBody(url: string, overrides: Record<string, unknown> = {}) {
  return { url, event_types: ['run.succeeded', 'run.failed', 'interrupt.created', 'budget.exceeded'], ...overrides };
}

async function createEndpoint(
  user: SignedInUser,
  body: Record<string, unknown>,
  workspaceId = owner.workspaceId,
): Promise<TWebhookEndpointWithSecret> {
  const response = await user.agent.post('/api/v1/webhooks').set({ 'x-workspace-id': workspaceId }).send(body);
  expect(response.status).toBe(201);
  return response.body as TWebhookEndpointWithSecret;
}

/** A workspace of its own, with an agent: the owner's is near its endpoint cap, and its events are not the test's. */
async function newTenant(): Promise<{ tenant: SignedInUser; tenantsAgentId: string }> {
  const tenant = await signUpUser(ctx.app);
  return { tenant, tenantsAgentId: (await createAgentThroughApi(tenant)).id };
}

async function deliveriesOf(endpointId: string, user = owner): Promise<TWebhookDelivery[]> {
  const response = await user.agent.get(`/api/v1/webhooks/${endpointId}/deliveries`).set(IN_OWNERS());
  expect(response.status).toBe(200);
  return (response.body as unknown[]).map((item) => ZWebhookDelivery.parse(item));
}

async function waitForDeliveries(
  endpointId: string,
  done: (deliveries: TWebhookDelivery[]) => boolean,
  what: string,
): Promise<TWebhookDelivery[]> {
  let last: TWebhookDelivery[] = [];
  await waitUntil(
    async () => {
      last = await deliveriesOf(endpointId);
      return done(last);
    },
    { what },
  );
  return last;
}

function verify(secret: string, received: { headers: Record<string, unknown>; body: string }) {
  return new Webhook(secret).verify(received.body, received.headers as Record<string, string>) as {
    type: string;
    data: Record<string, unknown>;
  };
}

/** A run of `agent` as its engine records one: created running, then ended with `status`. */
async function endRun(agent: string, status: string, end: { error?: string; errorCode?: string } = {}) {
  const runId = `run-${randomUUID()}`;
  const db = ctx.database.prisma;
  await db.$executeRaw`
    INSERT INTO agent_runs (id, agent_id, thread_id, thread_key, source, status, started_at)
    VALUES (${runId}, ${agent}::uuid, 'thread-1', 'key-1', 'background', 'running', now())`;
  await db.$executeRaw`
    UPDATE agent_runs SET status = ${status}::"RunStatus", error = ${end.error ?? null}, error_code = ${end.errorCode ?? null},
      finished_at = now()
    WHERE agent_id = ${agent}::uuid AND id = ${runId}`;
  return runId;
}

describe('endpoints', () => {
  it('are created with a whsec_ secret shown once, then read, listed, replaced and deleted with it masked', async () => {
    const receiver = await newReceiver();
    const created = await createEndpoint(owner, endpointBody(receiver.url, { description: 'CI' }));
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created).toMatchObject({ url: receiver.url, description: 'CI', include_content: false, enabled: true });

    const read = await owner.agent.get(`/api/v1/webhooks/${created.id}`).set(IN_OWNERS());
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(read.body.secret_hint).toBe(`\u2022`.repeat(8) + created.secret.slice(-4));
    expect(JSON.stringify(read.body)).not.toContain(created.secret);

    const list = await admin.agent.get('/api/v1/webhooks?limit=1000').set(IN_OWNERS());
    expect(list.status).toBe(200);
    expect(Number(list.headers['x-total-count'])).toBe((list.body as unknown[]).length);
    expect((list.body as { id: string }[]).map((item) => item.id)).toContain(created.id);

    const replaced = await admin.agent
      .patch(`/api/v1/webhooks/${created.id}`)
      .set(IN_OWNERS())
      .send({ url: receiver.url, event_types: ['run.cancelled'], enabled: false });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ event_types: ['run.cancelled'], enabled: false, description: null });

    expect((await owner.agent.delete(`/api/v1/webhooks/${created.id}`).set(IN_OWNERS())).status).toBe(204);
    expectProblemShape(await owner.agent.get(`/api/v1/webhooks/${created.id}`).set(IN_OWNERS()), 404);
  });

  it('are for admins and owners: members and viewers get 403, and no session 401', async () => {
    const receiver = await newReceiver();
    for (const user of [member, viewer]) {
      expectProblemShape(await user.agent.get('/api/v1/webhooks').set(IN_OWNERS()), 403);
      expectProblemShape(
        await user.agent.post('/api/v1/webhooks').set(IN_OWNERS()).send(endpointBody(receiver.url)),
        403,
      );
    }
    expectProblemShape(await request(ctx.app).get('/api/v1/webhooks'), 401);
  });

  it("answer 404 for another workspace's endpoint and its deliveries, and 400 for an id that is not a UUID", async () => {
    const receiver = await newReceiver();
    const created = await createEndpoint(owner, endpointBody(receiver.url));
    const foreign = `/api/v1/webhooks/${created.id}`;
    expectProblemShape(await stranger.agent.get(foreign), 404);
    expectProblemShape(await stranger.agent.patch(foreign).send(endpointBody(receiver.url)), 404);
    expectProblemShape(await stranger.agent.delete(foreign), 404);
    expectProblemShape(await stranger.agent.post(`${foreign}/rotate-secret`).send({}), 404);
    expectProblemShape(await stranger.agent.get(`${foreign}/deliveries`), 404);
    expectProblemShape(await stranger.agent.post(`${foreign}/test`), 404);
    expectProblemShape(await stranger.agent.post(`${foreign}/deliveries/${randomUUID()}/replay`), 404);
    expectProblemShape(await owner.agent.post(`${foreign}/deliveries/${randomUUID()}/replay`).set(IN_OWNERS()), 404);
    expectProblemShape(await owner.agent.get('/api/v1/webhooks/not-a-uuid').set(IN_OWNERS()), 400);
    expectProblemShape(await owner.agent.get(`/api/v1/webhooks/${randomUUID()}`).set(IN_OWNERS()), 404);
  });

  it.each([
    ['no url', { event_types: ['run.failed'] }],
    ['a url that is not http(s)', { url: 'ftp://example.com/x', event_types: ['run.failed'] }],
    ['credentials in the url', { url: 'https://u:p@example.com/x', event_types: ['run.failed'] }],
    ['a lone surrogate in the url', { url: 'https://example.com/\ud800', event_types: ['run.failed'] }],
    ['no event type', { url: 'https://example.com/x', event_types: [] }],
    ['an unknown event type', { url: 'https://example.com/x', event_types: ['run.started'] }],
    ['a repeated event type', { url: 'https://example.com/x', event_types: ['run.failed', 'run.failed'] }],
    ['an unknown field', { url: 'https://example.com/x', event_types: ['run.failed'], secret: 'whsec_x' }],
    [
      'a NUL in the description',
      { url: 'https://example.com/x', event_types: ['run.failed'], description: 'a\u0000b' },
    ],
    [
      'a huge description',
      { url: 'https://example.com/x', event_types: ['run.failed'], description: 'x'.repeat(100_000) },
    ],
    ['a huge url', { url: `https://example.com/${'x'.repeat(10_000)}`, event_types: ['run.failed'] }],
    ['a private address', { url: 'http://10.0.0.1/hook', event_types: ['run.failed'] }],
    ['loopback the operator did not allow', { url: 'http://127.0.0.1:9/hook', event_types: ['run.failed'] }],
    ['cloud metadata', { url: 'http://169.254.169.254/latest', event_types: ['run.failed'] }],
  ])('refuse %s with a 4xx problem', async (_case, body) => {
    const response = await owner.agent.post('/api/v1/webhooks').set(IN_OWNERS()).send(body);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expectProblemShape(response, response.status);
  });

  it('are capped per workspace: creates racing at MAX_WEBHOOKS_PER_WORKSPACE never both pass', async () => {
    const user = await signUpUser(ctx.app);
    const receiver = await newReceiver();
    const answers = await Promise.all(
      Array.from({ length: 14 }, () => user.agent.post('/api/v1/webhooks').send(endpointBody(receiver.url))),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(12);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused).toHaveLength(2);
    for (const answer of refused) expectProblemShape(answer, 409);
  });
});

describe('deliveries', () => {
  it('are signed per Standard Webhooks: a test event verifies with the secret, and is logged', async () => {
    const receiver = await newReceiver();
    const endpoint = await createEndpoint(owner, endpointBody(receiver.url));
    const queued = await owner.agent.post(`/api/v1/webhooks/${endpoint.id}/test`).set(IN_OWNERS());
    expect(queued.status).toBe(201);
    const [delivery] = await waitForDeliveries(endpoint.id, (all) => all[0]?.status === 'succeeded', 'the test event');
    const [received] = receiver.received;
    expect(received?.headers['webhook-id']).toBe(delivery?.message_id);
    expect(verify(endpoint.secret, received as never)).toMatchObject({
      type: 'webhook.test',
      data: { endpoint_id: endpoint.id },
    });
    expect(() => verify(`whsec_${Buffer.alloc(32).toString('base64')}`, received as never)).toThrow();
    expect(delivery).toMatchObject({ attempts: 1, last_status_code: 200, last_error: null });
    expect(delivery?.attempt_log).toEqual([expect.objectContaining({ attempt: 1, status_code: 200, error: null })]);
  });

  it("carry a run's end as run.succeeded with ids and status only; no other workspace hears of it", async () => {
    const mine = await newReceiver();
    const theirs = await newReceiver();
    const endpoint = await createEndpoint(owner, endpointBody(mine.url));
    const strangers = await stranger.agent.post('/api/v1/webhooks').send(endpointBody(theirs.url));
    expect(strangers.status).toBe(201);
    const runId = await endRun(agentId, 'succeeded');
    await waitForDeliveries(endpoint.id, (all) => all.some((d) => d.status === 'succeeded'), 'run.succeeded');
    const event = verify(endpoint.secret, mine.received[0] as never);
    expect(event).toMatchObject({
      type: 'run.succeeded',
      data: { agent_id: agentId, run_id: runId, thread_id: 'thread-1', status: 'succeeded', error_code: null },
    });
    expect(event.data).not.toHaveProperty('error');
    // The stranger's own run reaches the stranger's endpoint: the receiver saw that one event only.
    await endRun(strangersAgentId, 'succeeded');
    await waitUntil(() => theirs.received.length === 1, { what: "the stranger's own event" });
    expect(JSON.parse(theirs.received[0]?.body ?? '{}').data.agent_id).toBe(strangersAgentId);
    expect(mine.received).toHaveLength(1);
  });

  it('tell budget.exceeded besides run.failed for a run a budget refused, with the error only when content is opted in', async () => {
    const plain = await newReceiver();
    const withContent = await newReceiver();
    await createEndpoint(owner, endpointBody(plain.url, { event_types: ['budget.exceeded'] }));
    const full = await createEndpoint(owner, endpointBody(withContent.url, { include_content: true }));
    await endRun(agentId, 'failed', { error: 'The daily budget is spent', errorCode: 'BUDGET_EXCEEDED' });
    await waitUntil(() => plain.received.length === 1 && withContent.received.length === 2, { what: 'both endpoints' });
    const bare = JSON.parse(plain.received[0]?.body ?? '{}');
    expect(bare).toMatchObject({ type: 'budget.exceeded', data: { status: 'failed', error_code: 'BUDGET_EXCEEDED' } });
    expect(bare.data).not.toHaveProperty('error');
    const types = withContent.received.map((received) => verify(full.secret, received as never));
    expect(types.map((event) => event.type).sort()).toEqual(['budget.exceeded', 'run.failed']);
    for (const event of types) expect(event.data.error).toBe('The daily budget is spent');
  });

  it("carry a succeeded run's final reply, cut to 2000 characters, only when content is opted in", async () => {
    const db = ctx.database.prisma;
    const { tenant, tenantsAgentId } = await newTenant();
    const plain = await newReceiver();
    const withContent = await newReceiver();
    for (const [url, include_content] of [
      [plain.url, false],
      [withContent.url, true],
    ] as const) {
      await createEndpoint(
        tenant,
        endpointBody(url, { event_types: ['run.succeeded'], include_content }),
        tenant.workspaceId,
      );
    }
    const threadKey = `agui:${randomUUID()}`;
    const reply = `${'é'.repeat(1999)}and more`;
    /** A run ended as its engine ends one: the thread's append, then the final status, in one transaction. */
    const endRunWithMessages = async (messages: Record<string, unknown>[]) => {
      const runId = `run-${randomUUID()}`;
      await db.$executeRaw`
        INSERT INTO agent_runs (id, agent_id, thread_id, thread_key, source, status, started_at)
        VALUES (${runId}, ${tenantsAgentId}::uuid, 'thread-1', ${threadKey}, 'background', 'running', now())`;
      await db.$transaction([
        db.$executeRaw`
          WITH thread AS (
            INSERT INTO conversation_threads (agent_id, external_key, last_seq) VALUES (${tenantsAgentId}::uuid, ${threadKey}, ${messages.length})
            ON CONFLICT (agent_id, external_key) DO UPDATE SET last_seq = conversation_threads.last_seq + EXCLUDED.last_seq
            RETURNING id, last_seq)
          INSERT INTO conversation_messages (thread_id, agent_id, seq, message)
          SELECT thread.id, ${tenantsAgentId}::uuid, thread.last_seq - ${messages.length}::int + t.ord, t.message
          FROM thread, jsonb_array_elements(${JSON.stringify(messages)}::jsonb) WITH ORDINALITY AS t(message, ord)`,
        db.$executeRaw`
          UPDATE agent_runs SET status = 'succeeded', finished_at = now()
          WHERE agent_id = ${tenantsAgentId}::uuid AND id = ${runId}`,
      ]);
      return runId;
    };
    const first = await endRunWithMessages([
      { id: 'u1', role: 'user', content: 'What is the weather?' },
      { id: 'a1', role: 'assistant', content: 'An early thought', toolCalls: [] },
      { id: 't1', role: 'tool', content: '{"sunny":true}', toolCallId: 'c1' },
      { id: 'a2', role: 'assistant', content: reply },
    ]);
    // A later run of the thread that appended nothing: the earlier run's reply is not its own.
    const second = await endRunWithMessages([]);
    await waitUntil(() => plain.received.length === 2 && withContent.received.length === 2, {
      what: 'both runs at both endpoints',
    });
    const dataOf = (received: { body: string }[], runId: string) =>
      received.map((item) => JSON.parse(item.body).data).find((data) => data.run_id === runId);
    expect(dataOf(withContent.received, first).reply).toBe(reply.slice(0, 2000));
    expect(dataOf(withContent.received, second).reply).toBeNull();
    for (const runId of [first, second]) expect(dataOf(plain.received, runId)).not.toHaveProperty('reply');
  });

  it('carry agent.version.created for a new version, with its cause, author and message', async () => {
    const { tenant, tenantsAgentId } = await newTenant();
    const receiver = await newReceiver();
    const endpoint = await createEndpoint(
      tenant,
      endpointBody(receiver.url, { event_types: ['agent.version.created'] }),
      tenant.workspaceId,
    );
    const patched = await tenant.agent.patch(`/api/v1/agents/${tenantsAgentId}`).send(
      agentBody(
        {},
        {
          agent: { model: { provider: 'mock', name: 'echo' }, instructions: 'Shorter.' },
          version_message: 'shorter answers',
        },
      ),
    );
    expect(patched.status).toBe(200);
    await waitUntil(() => receiver.received.length === 1, { what: 'the agent.version.created event' });
    expect(verify(endpoint.secret, receiver.received[0] as never)).toMatchObject({
      type: 'agent.version.created',
      data: {
        agent_id: tenantsAgentId,
        version: patched.body.engine_config_version,
        cause: 'update',
        author_id: tenant.userId,
        message: 'shorter answers',
        rolled_back_from: null,
      },
    });
  });

  it("carry interrupt.created, with the tool's arguments only when content is opted in", async () => {
    const plain = await newReceiver();
    const withContent = await newReceiver();
    await createEndpoint(owner, endpointBody(plain.url, { event_types: ['interrupt.created'] }));
    await createEndpoint(
      owner,
      endpointBody(withContent.url, { event_types: ['interrupt.created'], include_content: true }),
    );
    const runId = await endRun(agentId, 'cancelled');
    const db = ctx.database.prisma;
    const [thread] = await db.$queryRaw<{ id: string }[]>`
      INSERT INTO conversation_threads (agent_id, external_key) VALUES (${agentId}::uuid, ${randomUUID()}) RETURNING id`;
    await db.$executeRaw`
      INSERT INTO thread_interrupts (agent_id, id, thread_id, run_id, reason, tool_name, arguments, interrupt, expires_at)
      VALUES (${agentId}::uuid, 'int-1', ${thread?.id}::uuid, ${runId}, 'tool_approval', 'send_email',
        '{"to":"a@example.com"}'::jsonb, '{}'::jsonb, now() + interval '1 hour')`;
    await waitUntil(() => plain.received.length === 1 && withContent.received.length === 1, { what: 'both endpoints' });
    const bare = JSON.parse(plain.received[0]?.body ?? '{}');
    expect(bare).toMatchObject({
      type: 'interrupt.created',
      data: { agent_id: agentId, run_id: runId, thread_id: 'thread-1', interrupt_id: 'int-1', tool_name: 'send_email' },
    });
    expect(bare.data).not.toHaveProperty('arguments');
    expect(JSON.parse(withContent.received[0]?.body ?? '{}').data.arguments).toEqual({ to: 'a@example.com' });
  });

  it('are retried after a 500 and after a timeout, with the same webhook-id, each attempt logged', async () => {
    const receiver = await newReceiver();
    receiver.script(500, 'hang');
    const endpoint = await createEndpoint(owner, endpointBody(receiver.url));
    await owner.agent.post(`/api/v1/webhooks/${endpoint.id}/test`).set(IN_OWNERS());
    const [delivery] = await waitForDeliveries(
      endpoint.id,
      (all) => all[0]?.status === 'succeeded',
      'the third attempt',
    );
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((received) => received.headers['webhook-id']))).toEqual(
      new Set([delivery?.message_id]),
    );
    for (const received of receiver.received) verify(endpoint.secret, received as never);
    expect(delivery?.attempt_log).toEqual([
      expect.objectContaining({ attempt: 1, status_code: 500, error: null }),
      expect.objectContaining({ attempt: 2, status_code: null, error: 'no answer within 300 ms' }),
      expect.objectContaining({ attempt: 3, status_code: 200, error: null }),
    ]);
  });

  it('fail for good once their day is over', async () => {
    const receiver = await newReceiver();
    receiver.script(503);
    const endpoint = await createEndpoint(owner, endpointBody(receiver.url));
    await ctx.database.prisma.$executeRaw`
      INSERT INTO webhook_deliveries (endpoint_id, message_id, event_type, payload, give_up_at)
      VALUES (${endpoint.id}::uuid, 'msg_lastday', 'run.failed', '{"type":"run.failed","data":{}}', now() + interval '5 milliseconds')`;
    const [delivery] = await waitForDeliveries(
      endpoint.id,
      (all) => all[0]?.status === 'failed',
      'the delivery to fail',
    );
    expect(delivery).toMatchObject({ attempts: 1, last_status_code: 503, next_attempt_at: null });
    expect(receiver.received).toHaveLength(1);
  });

  it('are refused at connect time for a host name that resolves to a refused address, and say so in the log', async () => {
    const loopback = await newReceiver('127.0.0.1');
    const url = loopback.url.replace('127.0.0.1', 'localhost');
    const endpoint = await createEndpoint(owner, endpointBody(url));
    await owner.agent.post(`/api/v1/webhooks/${endpoint.id}/test`).set(IN_OWNERS());
    const [delivery] = await waitForDeliveries(
      endpoint.id,
      (all) => (all[0]?.attempts ?? 0) >= 1 && all[0]?.last_error !== null,
      'the refusal',
    );
    expect(delivery?.last_error).toMatch(/refuses 127\.0\.0\.1 \(localhost\).*EGRESS_ALLOW/);
    expect(delivery?.last_status_code).toBeNull();
    expect(loopback.received).toHaveLength(0);
    await owner.agent.delete(`/api/v1/webhooks/${endpoint.id}`).set(IN_OWNERS());
  });

  it('are replayed as a new delivery with the same webhook-id and body', async () => {
    const receiver = await newReceiver();
    const endpoint = await createEndpoint(owner, endpointBody(receiver.url));
    await owner.agent.post(`/api/v1/webhooks/${endpoint.id}/test`).set(IN_OWNERS());
    const [first] = await waitForDeliveries(endpoint.id, (all) => all[0]?.status === 'succeeded', 'the first delivery');
    const replay = await owner.agent
      .post(`/api/v1/webhooks/${endpoint.id}/deliveries/${first?.id}/replay`)
      .set(IN_OWNERS());
    expect(replay.status).toBe(201);
    expect(replay.body).toMatchObject({ replay_of: first?.id, message_id: first?.message_id, status: 'pending' });
    await waitUntil(() => receiver.received.length === 2, { what: 'the replay' });
    expect(receiver.received[1]?.body).toBe(receiver.received[0]?.body);
    expect(receiver.received[1]?.headers['webhook-id']).toBe(first?.message_id);
  });

  it('are signed with both secrets while a rotated one is in its grace period, with the new one alone after', async () => {
    const receiver = await newReceiver();
    const endpoint = await createEndpoint(owner, endpointBody(receiver.url));
    const rotated = await owner.agent
      .post(`/api/v1/webhooks/${endpoint.id}/rotate-secret`)
      .set(IN_OWNERS())
      .send({ previous_valid_seconds: 600 });
    expect(rotated.status).toBe(200);
    const secret = (rotated.body as TWebhookEndpointWithSecret).secret;
    expect(secret).not.toBe(endpoint.secret);
    await owner.agent.post(`/api/v1/webhooks/${endpoint.id}/test`).set(IN_OWNERS());
    await waitUntil(() => receiver.received.length === 1, { what: 'the delivery' });
    verify(secret, receiver.received[0] as never);
    verify(endpoint.secret, receiver.received[0] as never);

    const again = await owner.agent.post(`/api/v1/webhooks/${endpoint.id}/rotate-secret`).set(IN_OWNERS()).send({});
    expect(again.status).toBe(200);
    await owner.agent.post(`/api/v1/webhooks/${endpoint.id}/test`).set(IN_OWNERS());
    await waitUntil(() => receiver.received.length === 2, { what: 'the second delivery' });
    verify((again.body as TWebhookEndpointWithSecret).secret, receiver.received[1] as never);
    expect(() => verify(secret, receiver.received[1] as never)).toThrow();
  });

  it('keep both secrets of two rotations racing: the first one shown still signs beside the second', async () => {
    const { tenant } = await newTenant();
    const inTenants = { 'x-workspace-id': tenant.workspaceId };
    const receiver = await newReceiver();
    const endpoint = await createEndpoint(tenant, endpointBody(receiver.url), tenant.workspaceId);
    const rotate = () =>
      tenant.agent
        .post(`/api/v1/webhooks/${endpoint.id}/rotate-secret`)
        .set(inTenants)
        .send({ previous_valid_seconds: 600 });
    const rotations = await Promise.all([rotate(), rotate()]);
    expect(rotations.map((rotation) => rotation.status)).toEqual([200, 200]);
    await tenant.agent.post(`/api/v1/webhooks/${endpoint.id}/test`).set(inTenants);
    await waitUntil(() => receiver.received.length === 1, { what: 'the delivery' });
    for (const rotation of rotations) {
      verify((rotation.body as TWebhookEndpointWithSecret).secret, receiver.received[0] as never);
    }
  });

  it('record a secret SECRETS_KEY cannot open as a failed attempt, retried and given up on, never sent', async () => {
    const { tenant } = await newTenant();
    const receiver = await newReceiver();
    const endpoint = await createEndpoint(tenant, endpointBody(receiver.url), tenant.workspaceId);
    const db = ctx.database.prisma;
    // As after a key rotation that dropped the key this secret was sealed with.
    await db.$executeRaw`UPDATE webhook_endpoints SET secret = 'enc:v1:retired-key:aaaa:bbbb:cccc' WHERE id = ${endpoint.id}::uuid`;
    await db.$executeRaw`
      INSERT INTO webhook_deliveries (endpoint_id, message_id, event_type, payload, give_up_at)
      VALUES (${endpoint.id}::uuid, 'msg_unopenable', 'run.failed', '{"type":"run.failed","data":{}}', now() + interval '5 milliseconds')`;
    let delivery: TWebhookDelivery | undefined;
    await waitUntil(
      async () => {
        const response = await tenant.agent
          .get(`/api/v1/webhooks/${endpoint.id}/deliveries`)
          .set({ 'x-workspace-id': tenant.workspaceId });
        delivery = ZWebhookDelivery.parse(response.body[0]);
        return delivery.status === 'failed';
      },
      { what: 'the delivery to fail' },
    );
    expect(delivery).toMatchObject({
      attempts: 1,
      last_status_code: null,
      last_error: "the endpoint's signing secret cannot be opened with SECRETS_KEY",
    });
    expect(receiver.received).toHaveLength(0);
  });

  it('are capped per endpoint: past the pending cap events are dropped and counted, replays and tests refused', async () => {
    const db = ctx.database.prisma;
    const [{ max } = { max: 0 }] = await db.$queryRaw<{ max: number }[]>`SELECT webhook_max_pending() AS max`;
    expect(max).toBe(WEBHOOK_MAX_PENDING_DELIVERIES);
    const { tenant, tenantsAgentId } = await newTenant();
    const receiver = await newReceiver();
    const endpointId = (await createEndpoint(tenant, endpointBody(receiver.url), tenant.workspaceId)).id;
    // A receiver long down: the cap's worth of deliveries waiting for their next attempt, an hour away.
    await db.$executeRaw`
      INSERT INTO webhook_deliveries (endpoint_id, message_id, event_type, payload, next_attempt_at)
      SELECT ${endpointId}::uuid, 'msg_waiting_' || n, 'run.succeeded', '{}'::jsonb, now() + interval '1 hour'
      FROM generate_series(1, ${max}::int) AS n`;
    const pending = () => db.webhookDelivery.count({ where: { endpointId, status: 'pending' } });

    await endRun(tenantsAgentId, 'succeeded');
    await endRun(tenantsAgentId, 'failed');
    expect(await pending()).toBe(max);
    const read = await tenant.agent.get(`/api/v1/webhooks/${endpointId}`);
    expect(read.body).toMatchObject({ dropped_events: 2, last_dropped_at: expect.any(String) });

    expectProblemShape(await tenant.agent.post(`/api/v1/webhooks/${endpointId}/test`), 409);
    const waiting = await db.webhookDelivery.findFirstOrThrow({ where: { endpointId } });
    expectProblemShape(await tenant.agent.post(`/api/v1/webhooks/${endpointId}/deliveries/${waiting.id}/replay`), 409);
    expect(await pending()).toBe(max);

    // One given up on makes room for the next event, which is queued and sent.
    await db.webhookDelivery.update({ where: { id: waiting.id }, data: { status: 'failed', finishedAt: new Date() } });
    const runId = await endRun(tenantsAgentId, 'succeeded');
    await waitUntil(() => receiver.received.some((received) => received.body.includes(runId)), {
      what: 'the event queued once there was room',
    });
    expect((await tenant.agent.get(`/api/v1/webhooks/${endpointId}`)).body.dropped_events).toBe(2);
  });

  it('refuse a bad rotation body and an unknown status filter', async () => {
    const receiver = await newReceiver();
    const endpoint = await createEndpoint(owner, endpointBody(receiver.url));
    const bad = await owner.agent
      .post(`/api/v1/webhooks/${endpoint.id}/rotate-secret`)
      .set(IN_OWNERS())
      .send({ previous_valid_seconds: -1 });
    expectProblemShape(bad, 422);
    expectProblemShape(
      await owner.agent.get(`/api/v1/webhooks/${endpoint.id}/deliveries?status=lost`).set(IN_OWNERS()),
      400,
    );
  });
});

describe('the tenant boundary', () => {
  it('gives engine roles no privilege on endpoints, deliveries or the enqueue function', async () => {
    const [row] = await ctx.database.prisma.$queryRaw<Record<string, boolean>[]>`
      SELECT has_table_privilege(${ENGINE_GROUP_ROLE}, 'webhook_endpoints', 'SELECT') AS endpoints,
        has_table_privilege(${ENGINE_GROUP_ROLE}, 'webhook_deliveries', 'SELECT,INSERT') AS deliveries,
        has_function_privilege(${ENGINE_GROUP_ROLE}, 'webhook_enqueue(uuid, text, jsonb, jsonb)', 'EXECUTE') AS enqueue`;
    expect(row).toEqual({ endpoints: false, deliveries: false, enqueue: false });
  });
});
