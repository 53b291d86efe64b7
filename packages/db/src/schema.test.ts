// Proves that prisma/schema.prisma and the SQL migrations agree: every model makes a full
// create/read/update/delete round trip through the generated client on the migrated database.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isForeignKeyViolation, isUniqueViolation } from './errors.js';
import {
  makeAgent,
  makeIntegration,
  makeMcpServer,
  makeObservabilityConfig,
  makeSsoConfig,
  makeUser,
  makeWorkspace,
} from './testing/factories.js';
import { createTestDatabase, type TestDatabase } from './testing/test-database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

const db = () => database.prisma;

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the operation to be rejected');
    },
    (error: unknown) => error,
  );
}

describe('every model round-trips through the migrated database', () => {
  it('workspaces', async () => {
    const created = await db().workspace.create({ data: { name: 'Acme' } });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.createdAt).toBeInstanceOf(Date);
    const updated = await db().workspace.update({ where: { id: created.id }, data: { name: 'Acme 2' } });
    expect(updated.name).toBe('Acme 2');
    expect(updated.updatedAt.getTime()).toBeGreaterThanOrEqual(created.updatedAt.getTime());
    expect(await db().workspace.findUnique({ where: { id: created.id } })).toEqual(updated);
    await db().workspace.delete({ where: { id: created.id } });
    expect(await db().workspace.findUnique({ where: { id: created.id } })).toBeNull();
  });

  it('users, with a unique email', async () => {
    const created = await db().user.create({
      data: { email: 'ada@example.test', name: 'Ada', passwordHash: '$argon2id$x' },
    });
    const duplicate = db().user.create({ data: { email: 'ada@example.test', passwordHash: 'y' } });
    expect(isUniqueViolation(await rejectionOf(duplicate))).toBe(true);
    const updated = await db().user.update({ where: { id: created.id }, data: { name: null } });
    expect(await db().user.findUnique({ where: { email: 'ada@example.test' } })).toEqual(updated);
    await db().user.delete({ where: { id: created.id } });
    expect(await db().user.count({ where: { id: created.id } })).toBe(0);
  });

  it('memberships, keyed by workspace and user', async () => {
    const [workspace, user] = await Promise.all([makeWorkspace(db()), makeUser(db())]);
    const key = { workspaceId_userId: { workspaceId: workspace.id, userId: user.id } };
    const created = await db().membership.create({
      data: { workspaceId: workspace.id, userId: user.id, role: 'owner' },
    });
    expect(created.role).toBe('owner');
    const updated = await db().membership.update({ where: key, data: { role: 'viewer' } });
    expect(await db().membership.findUnique({ where: key })).toEqual(updated);
    await db().membership.delete({ where: key });
    expect(await db().membership.findUnique({ where: key })).toBeNull();
  });

  it('sessions', async () => {
    const user = await makeUser(db());
    const expiresAt = new Date(Date.now() + 60_000);
    const created = await db().session.create({
      data: { sid: 'sid-1', userId: user.id, data: { cookie: { maxAge: 1 } }, expiresAt },
    });
    expect(created.data).toEqual({ cookie: { maxAge: 1 } });
    expect(created.lastSeenAt).toBeInstanceOf(Date);
    const updated = await db().session.update({
      where: { sid: 'sid-1' },
      data: { data: { userId: user.id }, expiresAt: new Date(expiresAt.getTime() + 1000), lastSeenAt: new Date() },
    });
    expect(await db().session.findUnique({ where: { sid: 'sid-1' } })).toEqual(updated);
    await db().session.delete({ where: { sid: 'sid-1' } });
    expect(await db().session.count()).toBe(0);
  });

  it('invitations, unique per workspace and email and by token hash', async () => {
    const [workspace, inviter] = await Promise.all([makeWorkspace(db()), makeUser(db())]);
    const expiresAt = new Date(Date.now() + 60_000);
    const created = await db().invitation.create({
      data: {
        workspaceId: workspace.id,
        email: 'invitee@example.test',
        role: 'member',
        tokenHash: 'hash-1',
        invitedById: inviter.id,
        expiresAt,
      },
    });
    expect(created).toMatchObject({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), createdAt: expect.any(Date) });
    const sameEmail = db().invitation.create({
      data: {
        workspaceId: workspace.id,
        email: 'invitee@example.test',
        role: 'viewer',
        tokenHash: 'hash-2',
        expiresAt,
      },
    });
    expect(isUniqueViolation(await rejectionOf(sameEmail))).toBe(true);
    const sameToken = db().invitation.create({
      data: { workspaceId: workspace.id, email: 'other@example.test', role: 'viewer', tokenHash: 'hash-1', expiresAt },
    });
    expect(isUniqueViolation(await rejectionOf(sameToken))).toBe(true);
    const updated = await db().invitation.update({ where: { id: created.id }, data: { role: 'admin' } });
    expect(await db().invitation.findUnique({ where: { tokenHash: 'hash-1' } })).toEqual(updated);

    // The inviter's account may go; the invitation stays, and goes with its workspace.
    await db().user.delete({ where: { id: inviter.id } });
    expect((await db().invitation.findUniqueOrThrow({ where: { id: created.id } })).invitedById).toBeNull();
    await db().workspace.delete({ where: { id: workspace.id } });
    expect(await db().invitation.count({ where: { id: created.id } })).toBe(0);
  });

  it('agents, integrations, MCP servers, SSO and observability configs and both join tables', async () => {
    const workspace = await makeWorkspace(db());
    const sso = await makeSsoConfig(db(), workspace.id);
    const observability = await makeObservabilityConfig(db(), workspace.id);
    const integration = await makeIntegration(db(), workspace.id);
    const mcpServer = await makeMcpServer(db(), workspace.id);
    const agent = await db().agent.create({
      data: {
        workspaceId: workspace.id,
        name: 'support',
        description: 'answers',
        framework: 'LANGGRAPH',
        config: { graph: 'graph.js:graph' },
        ssoId: sso.id,
        observabilityId: observability.id,
        integrations: { create: { integrationId: integration.id } },
        mcpServers: { create: { mcpServerId: mcpServer.id } },
      },
      include: { integrations: true, mcpServers: true, sso: true, observability: true },
    });
    expect(agent.integrations.map((link) => link.integrationId)).toEqual([integration.id]);
    expect(agent.mcpServers.map((link) => link.mcpServerId)).toEqual([mcpServer.id]);
    expect(agent.sso?.id).toBe(sso.id);
    expect(agent.observability?.id).toBe(observability.id);

    const updates = await Promise.all([
      db().agent.update({ where: { id: agent.id }, data: { framework: 'CUSTOM', description: null } }),
      db().integration.update({ where: { id: integration.id }, data: { enabled: false, config: { a: 1 } } }),
      db().mcpServer.update({ where: { id: mcpServer.id }, data: { name: 'renamed' } }),
      db().ssoConfig.update({ where: { id: sso.id }, data: { config: { issuer: 'https://x.test' } } }),
      db().observabilityConfig.update({ where: { id: observability.id }, data: { name: 'traces' } }),
    ]);
    expect(updates[0].framework).toBe('CUSTOM');
    expect(updates[1]).toMatchObject({ enabled: false, config: { a: 1 } });
    expect(await db().integration.findUnique({ where: { id: integration.id } })).toEqual(updates[1]);
    expect(await db().mcpServer.findUnique({ where: { id: mcpServer.id } })).toEqual(updates[2]);
    expect(await db().ssoConfig.findUnique({ where: { id: sso.id } })).toEqual(updates[3]);
    expect(await db().observabilityConfig.findUnique({ where: { id: observability.id } })).toEqual(updates[4]);

    await db().agentIntegration.delete({
      where: { agentId_integrationId: { agentId: agent.id, integrationId: integration.id } },
    });
    await db().agentMcpServer.delete({
      where: { agentId_mcpServerId: { agentId: agent.id, mcpServerId: mcpServer.id } },
    });
    await db().agent.delete({ where: { id: agent.id } });
    await db().integration.delete({ where: { id: integration.id } });
    await db().mcpServer.delete({ where: { id: mcpServer.id } });
    await db().ssoConfig.delete({ where: { id: sso.id } });
    await db().observabilityConfig.delete({ where: { id: observability.id } });
    expect(await db().agent.count({ where: { workspaceId: workspace.id } })).toBe(0);
  });

  it("agents' and workspaces' placements: a pool only with the pool mode, and named as ENGINE_POOLS names pools", async () => {
    const workspace = await makeWorkspace(db());
    expect(workspace).toMatchObject({ defaultDeploymentMode: null, defaultDeploymentPool: null });
    const agent = await makeAgent(db(), workspace.id);
    expect(agent).toMatchObject({ deploymentMode: 'dedicated', deploymentPool: null });
    const pooled = await db().agent.update({
      where: { id: agent.id },
      data: { deploymentMode: 'pool', deploymentPool: 'main' },
    });
    expect(await db().agent.findUnique({ where: { id: agent.id } })).toEqual(pooled);
    const CHECK_VIOLATION = '23514';
    for (const data of [
      { deploymentMode: 'pool', deploymentPool: null },
      { deploymentMode: 'dedicated', deploymentPool: 'main' },
      { deploymentMode: 'pool', deploymentPool: 'Main' },
      { deploymentMode: 'shared', deploymentPool: null },
    ]) {
      const error = await rejectionOf(db().agent.update({ where: { id: agent.id }, data }));
      expect(JSON.stringify(error)).toContain(CHECK_VIOLATION);
    }
    const overridden = await db().workspace.update({
      where: { id: workspace.id },
      data: { defaultDeploymentMode: 'pool', defaultDeploymentPool: 'main' },
    });
    expect(await db().workspace.findUnique({ where: { id: workspace.id } })).toEqual(overridden);
    await db().workspace.update({
      where: { id: workspace.id },
      data: { defaultDeploymentMode: 'dedicated', defaultDeploymentPool: null },
    });
    for (const data of [
      { defaultDeploymentMode: null, defaultDeploymentPool: 'main' },
      { defaultDeploymentMode: 'pool', defaultDeploymentPool: null },
      { defaultDeploymentMode: 'dedicated', defaultDeploymentPool: 'main' },
      { defaultDeploymentMode: 'shared', defaultDeploymentPool: null },
    ]) {
      const error = await rejectionOf(db().workspace.update({ where: { id: workspace.id }, data }));
      expect(JSON.stringify(error)).toContain(CHECK_VIOLATION);
    }
  });

  it('users are no platform operators unless made so', async () => {
    const user = await makeUser(db());
    expect(user.platformOperator).toBe(false);
    const operator = await db().user.update({ where: { id: user.id }, data: { platformOperator: true } });
    expect(await db().user.findUnique({ where: { id: user.id } })).toEqual(operator);
  });

  it('signing keys', async () => {
    const created = await db().signingKey.create({
      data: { kid: 'k1', algorithm: 'ES256', publicJwk: { kty: 'EC', crv: 'P-256' }, privateJwk: 'enc:v1:x' },
    });
    expect(created.retiredAt).toBeNull();
    const retired = await db().signingKey.update({ where: { kid: 'k1' }, data: { retiredAt: new Date() } });
    expect(await db().signingKey.findUnique({ where: { kid: 'k1' } })).toEqual(retired);
    await db().signingKey.delete({ where: { kid: 'k1' } });
    expect(await db().signingKey.count()).toBe(0);
  });

  it('manager locks, seeded with the locks the manager takes', async () => {
    const seeded = await db().managerLock.findMany({ orderBy: { name: 'asc' } });
    expect(seeded.map((lock) => lock.name)).toEqual([
      'agent-versions-backfill',
      'engine-credentials',
      'engine-pools',
      'engine-roles-upgrade',
      'signing-key-creation',
    ]);
    await db().managerLock.create({ data: { name: 'test-lock' } });
    await db().managerLock.update({ where: { name: 'test-lock' }, data: { name: 'test-lock-2' } });
    await db().managerLock.delete({ where: { name: 'test-lock-2' } });
    expect(await db().managerLock.count()).toBe(5);
  });

  it('engine channels, each name unique', async () => {
    const agentId = '00000000-0000-4000-8000-0000000000c1';
    const created = await db().engineChannel.create({
      data: { agentId, configChannel: 'agent_c1', runChannel: 'agent_r1' },
    });
    expect(await db().engineChannel.findUnique({ where: { agentId } })).toEqual(created);
    expect(
      isUniqueViolation(
        await rejectionOf(
          db().engineChannel.create({
            data: {
              agentId: '00000000-0000-4000-8000-0000000000c2',
              configChannel: 'agent_c1',
              runChannel: 'agent_r2',
            },
          }),
        ),
      ),
    ).toBe(true);
    await db().engineChannel.update({ where: { agentId }, data: { runChannel: 'agent_r3' } });
    await db().engineChannel.delete({ where: { agentId } });
    expect(await db().engineChannel.count({ where: { agentId } })).toBe(0);
  });

  it('rate limit counters', async () => {
    const resetAt = new Date(Date.now() + 60_000);
    const created = await db().rateLimitCounter.create({ data: { key: 'ip:127.0.0.1', hits: 1, resetAt } });
    const updated = await db().rateLimitCounter.update({
      where: { key: created.key },
      data: { hits: { increment: 1 }, blockedUntil: resetAt },
    });
    expect(created.blockedUntil).toBeNull();
    expect(updated).toMatchObject({ hits: 2, blockedUntil: resetAt });
    expect(await db().rateLimitCounter.findUnique({ where: { key: created.key } })).toEqual(updated);
    await db().rateLimitCounter.delete({ where: { key: created.key } });
    expect(await db().rateLimitCounter.count()).toBe(0);
  });

  it('engine configs, with a bigint version', async () => {
    const workspace = await makeWorkspace(db());
    const agent = await makeAgent(db(), workspace.id);
    const created = await db().engineConfig.create({
      data: { agentId: agent.id, workspaceId: workspace.id, version: 1n, config: { agent: {} } },
    });
    expect(created.version).toBe(1n);
    const updated = await db().engineConfig.update({
      where: { agentId: agent.id },
      data: { version: { increment: 1 }, config: { agent: { name: 'x' } } },
    });
    expect(updated.version).toBe(2n);
    expect(await db().engineConfig.findUnique({ where: { agentId: agent.id } })).toEqual(updated);
    await db().engineConfig.delete({ where: { agentId: agent.id } });
    expect(await db().engineConfig.count({ where: { agentId: agent.id } })).toBe(0);
  });
  it('agent versions, keyed by agent and version, which go with their agent and outlive their author', async () => {
    const workspace = await makeWorkspace(db());
    const agent = await makeAgent(db(), workspace.id);
    const author = await makeUser(db());
    const key = { agentId_version: { agentId: agent.id, version: 1n } };
    const created = await db().agentVersion.create({
      data: {
        agentId: agent.id,
        version: 1n,
        workspaceId: workspace.id,
        cause: 'create',
        snapshot: { spec: {} },
        authorId: author.id,
      },
    });
    expect(created).toMatchObject({ message: null, rolledBackFrom: null });
    const duplicate = db().agentVersion.create({
      data: { agentId: agent.id, version: 1n, workspaceId: workspace.id, cause: 'update', snapshot: {} },
    });
    expect(isUniqueViolation(await rejectionOf(duplicate))).toBe(true);
    const updated = await db().agentVersion.update({ where: key, data: { message: 'why' } });
    expect(await db().agentVersion.findUnique({ where: key })).toEqual(updated);
    await db().user.delete({ where: { id: author.id } });
    expect((await db().agentVersion.findUnique({ where: key }))?.authorId).toBeNull();
    await db().agent.delete({ where: { id: agent.id } });
    expect(await db().agentVersion.count({ where: { agentId: agent.id } })).toBe(0);
  });

  it('run queue locks, 256 slots per agent and scope, which go with their agent', async () => {
    const workspace = await makeWorkspace(db());
    const agent = await makeAgent(db(), workspace.id);
    const created = await db().runQueueLock.create({ data: { agentId: agent.id, scope: 'thread', slot: 255 } });
    const key = { agentId_scope_slot: { agentId: agent.id, scope: 'thread', slot: 255 } };
    const updated = await db().runQueueLock.update({ where: key, data: { takenAt: new Date(Date.now() + 1000) } });
    expect(updated.takenAt.getTime()).toBeGreaterThan(created.takenAt.getTime());
    expect(await db().runQueueLock.findUnique({ where: key })).toEqual(updated);
    for (const outside of [
      { scope: 'thread', slot: 256 },
      { scope: 'thread', slot: -1 },
      { scope: 'agent', slot: 0 },
    ]) {
      await expect(db().runQueueLock.create({ data: { agentId: agent.id, ...outside } })).rejects.toThrow(/check/i);
    }
    await db().runQueueLock.create({ data: { agentId: agent.id, scope: 'caller', slot: 0 } });
    await db().agent.delete({ where: { id: agent.id } });
    expect(await db().runQueueLock.count({ where: { agentId: agent.id } })).toBe(0);
  });

  it('inbound messages, unique per agent and integration on the provider message id', async () => {
    const workspace = await makeWorkspace(db());
    const agent = await makeAgent(db(), workspace.id);
    const data = {
      agentId: agent.id,
      integrationId: '00000000-0000-4000-8000-000000000001',
      providerMessageId: 'wamid.1',
      sender: '15550001111',
      payload: { type: 'text', text: { body: 'hi' } },
    };
    const created = await db().inboundMessage.create({ data });
    expect(created).toMatchObject({
      status: 'pending',
      attempts: 0,
      replyPartsSent: 0,
      lockedUntil: null,
      provider: 'WHATSAPP',
      kind: 'message',
      conversation: null,
      replyState: null,
      runId: null,
    });
    expect(created.nextAttemptAt).toBeInstanceOf(Date);
    expect(isUniqueViolation(await rejectionOf(db().inboundMessage.create({ data })))).toBe(true);
    // The same provider id on another integration (another Slack app's event) is another message.
    const elsewhere = await db().inboundMessage.create({
      data: { ...data, integrationId: '00000000-0000-4000-8000-000000000002', provider: 'SLACK', conversation: 'C1' },
    });
    await expect(
      db().inboundMessage.create({ data: { ...data, providerMessageId: 'wamid.2', kind: 'reaction' } }),
    ).rejects.toThrow(/check/i);
    await db().inboundMessage.delete({ where: { id: elsewhere.id } });
    const updated = await db().inboundMessage.update({
      where: { id: created.id },
      data: {
        status: 'failed',
        attempts: { increment: 1 },
        lockedUntil: new Date(),
        lastError: 'graph 401',
        replyText: 'hello',
        replyPartsSent: 1,
        replyState: { posted: ['m1'] },
        runId: '00000000-0000-4000-8000-0000000000a1',
      },
    });
    expect(updated).toMatchObject({ status: 'failed', attempts: 1, replyText: 'hello' });
    expect(
      await db().inboundMessage.findUnique({
        where: {
          agentId_integrationId_providerMessageId: {
            agentId: agent.id,
            integrationId: data.integrationId,
            providerMessageId: 'wamid.1',
          },
        },
      }),
    ).toEqual(updated);
    await db().inboundMessage.delete({ where: { id: created.id } });
    expect(await db().inboundMessage.count({ where: { agentId: agent.id } })).toBe(0);
  });

  it('conversation threads, unique per agent and key, with their ordered messages', async () => {
    const workspace = await makeWorkspace(db());
    const agent = await makeAgent(db(), workspace.id);
    const thread = await db().conversationThread.create({
      data: {
        agentId: agent.id,
        externalKey: 'whatsapp:15550001111',
        messages: { create: [{ seq: 1, message: { id: 'm1', role: 'user', content: 'hi' } }] },
      },
      include: { messages: true },
    });
    expect(thread.messages.map((message) => message.message)).toEqual([{ id: 'm1', role: 'user', content: 'hi' }]);
    const duplicate = db().conversationThread.create({ data: { agentId: agent.id, externalKey: thread.externalKey } });
    expect(isUniqueViolation(await rejectionOf(duplicate))).toBe(true);
    const key = { threadId_seq: { threadId: thread.id, seq: 1 } };
    expect(
      isUniqueViolation(
        await rejectionOf(
          db().conversationMessage.create({ data: { ...key.threadId_seq, agentId: agent.id, message: {} } }),
        ),
      ),
    ).toBe(true);
    const updated = await db().conversationMessage.update({
      where: key,
      data: { message: { id: 'm1', role: 'user', content: 'hey' } },
    });
    expect(await db().conversationMessage.findUnique({ where: key })).toEqual(updated);
    const renamed = await db().conversationThread.update({
      where: { id: thread.id },
      data: { externalKey: 'agui:t1' },
    });
    expect(await db().conversationThread.findUnique({ where: { id: thread.id } })).toEqual(renamed);
    await db().conversationMessage.delete({ where: key });
    await db().conversationThread.delete({ where: { id: thread.id } });
    expect(await db().conversationThread.count({ where: { agentId: agent.id } })).toBe(0);
  });

  it('datasets, with their versions and item revisions: one current revision per item, ranges that end after they start', async () => {
    const workspace = await makeWorkspace(db());
    const dataset = await db().dataset.create({
      data: {
        workspaceId: workspace.id,
        name: 'Questions',
        versions: { create: { version: 1, change: 'created', itemCount: 0 } },
      },
    });
    expect(dataset).toMatchObject({ version: 1, itemCount: 0, storedRows: 0, description: null });
    const itemId = '00000000-0000-4000-8000-000000000001';
    const first = await db().datasetItem.create({
      data: { datasetId: dataset.id, itemId, input: [{ role: 'user', content: 'q' }], validFrom: 2 },
    });
    expect(typeof first.seq).toBe('bigint');
    expect(first).toMatchObject({ expected: null, metadata: null, validTo: null });
    const second = db().datasetItem.create({ data: { datasetId: dataset.id, itemId, input: [], validFrom: 3 } });
    expect(isUniqueViolation(await rejectionOf(second))).toBe(true);
    await db().datasetItem.update({ where: { id: first.id }, data: { validTo: 3 } });
    await db().datasetItem.create({ data: { datasetId: dataset.id, itemId, seq: first.seq, input: [], validFrom: 3 } });
    await expect(db().datasetItem.update({ where: { id: first.id }, data: { validTo: 1 } })).rejects.toThrow();
    await db().datasetVersion.create({
      data: { datasetId: dataset.id, version: 2, change: 'items_added', itemCount: 1 },
    });
    await db().workspace.delete({ where: { id: workspace.id } });
    expect(await db().datasetItem.count({ where: { datasetId: dataset.id } })).toBe(0);
    expect(await db().datasetVersion.count({ where: { datasetId: dataset.id } })).toBe(0);
  });

  it('experiments and their results: known statuses and states only, one result per (item, version, repeat), kept after their dataset', async () => {
    const workspace = await makeWorkspace(db());
    const agent = await makeAgent(db(), workspace.id);
    const dataset = await db().dataset.create({ data: { workspaceId: workspace.id, name: 'Questions' } });
    const experiment = await db().experiment.create({
      data: {
        workspaceId: workspace.id,
        agentId: agent.id,
        datasetId: dataset.id,
        datasetVersion: 1,
        name: 'A vs B',
        agentVersions: [1n, 2n],
        scorers: [{ name: 'exact', kind: 'exact_match' }],
        repeats: 1,
        concurrency: 4,
        itemCount: 1,
        runCount: 2,
      },
    });
    expect(experiment).toMatchObject({ status: 'running', agentVersions: [1n, 2n], startedAt: null, leaseOwner: null });
    const key = { experimentId: experiment.id, itemId: '00000000-0000-4000-8000-000000000001', repeat: 0 };
    const result = await db().experimentResult.create({ data: { ...key, agentVersion: 1n, position: 0 } });
    expect(result).toMatchObject({ state: 'pending', replyTruncated: false, scores: null });
    const again = db().experimentResult.create({ data: { ...key, agentVersion: 1n, position: 0 } });
    expect(isUniqueViolation(await rejectionOf(again))).toBe(true);
    await expect(
      db().experimentResult.update({
        where: { experimentId_itemId_agentVersion_repeat: { ...key, agentVersion: 1n } },
        data: { state: 'lost' },
      }),
    ).rejects.toThrow();
    await expect(
      db().experiment.update({ where: { id: experiment.id }, data: { status: 'paused' } }),
    ).rejects.toThrow();
    await db().dataset.delete({ where: { id: dataset.id } });
    expect(await db().experiment.findUnique({ where: { id: experiment.id } })).toMatchObject({ datasetId: null });
    await db().agent.delete({ where: { id: agent.id } });
    expect(await db().experimentResult.count({ where: { experimentId: experiment.id } })).toBe(0);
  });

  it('thread interrupts, keyed by agent and id, which go with their thread', async () => {
    const workspace = await makeWorkspace(db());
    const agent = await makeAgent(db(), workspace.id);
    const thread = await db().conversationThread.create({ data: { agentId: agent.id, externalKey: 'agui:t1' } });
    const created = await db().threadInterrupt.create({
      data: {
        agentId: agent.id,
        id: 'i1',
        threadId: thread.id,
        runId: 'r1',
        reason: 'tool_approval',
        toolCallId: 'call_1',
        toolName: 'github__create_issue',
        arguments: { title: 'x' },
        interrupt: { id: 'i1', reason: 'tool_approval' },
        expiresAt: new Date(Date.now() + 60_000),
      },
    });
    const key = { agentId_id: { agentId: agent.id, id: 'i1' } };
    const duplicate = db().threadInterrupt.create({ data: { ...created, arguments: {}, interrupt: {}, answer: {} } });
    expect(isUniqueViolation(await rejectionOf(duplicate))).toBe(true);
    const answered = await db().threadInterrupt.update({
      where: key,
      data: { answeredAt: new Date(), answeredByRun: 'r2', answer: { status: 'cancelled' } },
    });
    expect(await db().threadInterrupt.findUnique({ where: key })).toEqual(answered);
    await db().conversationThread.delete({ where: { id: thread.id } });
    expect(await db().threadInterrupt.count({ where: { agentId: agent.id } })).toBe(0);
  });

  it('online scoring settings, queue entries and run scores, which go with their run and agent', async () => {
    const workspace = await makeWorkspace(db());
    const agent = await makeAgent(db(), workspace.id);
    const settings = await db().onlineScoringSettings.create({
      data: {
        agentId: agent.id,
        workspaceId: workspace.id,
        sampleRate: 0.5,
        sources: ['stream'],
        scorers: [{ name: 'n', kind: 'tokens', max: 5 }],
        maxQueued: 10,
      },
    });
    expect(settings).toMatchObject({ enabled: false, droppedRuns: 0n, lastDroppedAt: null });
    const updated = await db().onlineScoringSettings.update({ where: { agentId: agent.id }, data: { enabled: true } });
    expect(await db().onlineScoringSettings.findUnique({ where: { agentId: agent.id } })).toEqual(updated);
    const outOfRange = db().onlineScoringSettings.update({ where: { agentId: agent.id }, data: { sampleRate: 2 } });
    expect(await rejectionOf(outOfRange)).toBeDefined();
    await db().agentRun.create({
      data: { agentId: agent.id, id: 'r1', threadId: 't1', threadKey: 'agui:t1', source: 'stream' },
    });
    const queued = await db().onlineScoringQueue.create({ data: { agentId: agent.id, runId: 'r1' } });
    expect(queued).toMatchObject({ attempts: 0, leaseOwner: null });
    const score = await db().runScore.create({
      data: { agentId: agent.id, runId: 'r1', scorerName: 'n', kind: 'tokens', score: 0.5, reason: 'ok' },
    });
    expect(
      await db().runScore.findUnique({
        where: { agentId_runId_scorerName: { agentId: agent.id, runId: 'r1', scorerName: 'n' } },
      }),
    ).toEqual(score);
    const orphan = db().runScore.create({
      data: { agentId: agent.id, runId: 'nope', scorerName: 'n', kind: 'tokens', reason: 'x' },
    });
    expect(isForeignKeyViolation(await rejectionOf(orphan))).toBe(true);
    await db().agentRun.delete({ where: { agentId_id: { agentId: agent.id, id: 'r1' } } });
    expect(await db().runScore.count({ where: { agentId: agent.id } })).toBe(0);
    expect(await db().onlineScoringQueue.count({ where: { agentId: agent.id } })).toBe(0);
    await db().agent.delete({ where: { id: agent.id } });
    expect(await db().onlineScoringSettings.count({ where: { agentId: agent.id } })).toBe(0);
  });
});

describe('referential actions', () => {
  it('refuses to delete an integration, MCP server, SSO or observability config an agent references', async () => {
    const workspace = await makeWorkspace(db());
    const [integration, mcpServer, sso, observability] = await Promise.all([
      makeIntegration(db(), workspace.id),
      makeMcpServer(db(), workspace.id),
      makeSsoConfig(db(), workspace.id),
      makeObservabilityConfig(db(), workspace.id),
    ]);
    const agent = await makeAgent(db(), workspace.id, { ssoId: sso.id, observabilityId: observability.id });
    await db().agentIntegration.create({ data: { agentId: agent.id, integrationId: integration.id } });
    await db().agentMcpServer.create({ data: { agentId: agent.id, mcpServerId: mcpServer.id } });

    expect(isForeignKeyViolation(await rejectionOf(db().integration.delete({ where: { id: integration.id } })))).toBe(
      true,
    );
    expect(isForeignKeyViolation(await rejectionOf(db().mcpServer.delete({ where: { id: mcpServer.id } })))).toBe(true);
    expect(isForeignKeyViolation(await rejectionOf(db().ssoConfig.delete({ where: { id: sso.id } })))).toBe(true);
    expect(
      isForeignKeyViolation(await rejectionOf(db().observabilityConfig.delete({ where: { id: observability.id } }))),
    ).toBe(true);
    expect(await db().integration.count({ where: { id: integration.id } })).toBe(1);
  });

  it('deleting an agent removes its links, engine config, queued messages and threads, and frees the resources', async () => {
    const workspace = await makeWorkspace(db());
    const integration = await makeIntegration(db(), workspace.id);
    const mcpServer = await makeMcpServer(db(), workspace.id);
    const agent = await makeAgent(db(), workspace.id);
    await db().agentIntegration.create({ data: { agentId: agent.id, integrationId: integration.id } });
    await db().agentMcpServer.create({ data: { agentId: agent.id, mcpServerId: mcpServer.id } });
    await db().engineConfig.create({
      data: { agentId: agent.id, workspaceId: workspace.id, version: 1n, config: {} },
    });

    await db().inboundMessage.create({
      data: {
        agentId: agent.id,
        integrationId: integration.id,
        providerMessageId: 'wamid.x',
        sender: '1',
        payload: {},
      },
    });
    await db().conversationThread.create({
      data: { agentId: agent.id, externalKey: 'whatsapp:1', messages: { create: { seq: 1, message: {} } } },
    });

    await db().agent.delete({ where: { id: agent.id } });

    expect(await db().inboundMessage.count({ where: { agentId: agent.id } })).toBe(0);
    expect(await db().conversationThread.count({ where: { agentId: agent.id } })).toBe(0);
    expect(await db().conversationMessage.count()).toBe(0);
    expect(await db().agentIntegration.count({ where: { agentId: agent.id } })).toBe(0);
    expect(await db().agentMcpServer.count({ where: { agentId: agent.id } })).toBe(0);
    expect(await db().engineConfig.count({ where: { agentId: agent.id } })).toBe(0);
    await db().integration.delete({ where: { id: integration.id } });
    await db().mcpServer.delete({ where: { id: mcpServer.id } });
  });

  it('deleting a user removes their memberships and sessions', async () => {
    const [workspace, user] = await Promise.all([makeWorkspace(db()), makeUser(db())]);
    await db().membership.create({ data: { workspaceId: workspace.id, userId: user.id, role: 'admin' } });
    await db().session.create({
      data: { sid: `sid-${user.id}`, userId: user.id, data: {}, expiresAt: new Date() },
    });
    await db().user.delete({ where: { id: user.id } });
    expect(await db().membership.count({ where: { userId: user.id } })).toBe(0);
    expect(await db().session.count({ where: { userId: user.id } })).toBe(0);
  });

  it('deleting a workspace without agents removes its resources and memberships', async () => {
    const [workspace, user] = await Promise.all([makeWorkspace(db()), makeUser(db())]);
    await db().membership.create({ data: { workspaceId: workspace.id, userId: user.id, role: 'owner' } });
    await makeIntegration(db(), workspace.id);
    await makeMcpServer(db(), workspace.id);
    await makeSsoConfig(db(), workspace.id);
    await makeObservabilityConfig(db(), workspace.id);
    await db().workspace.delete({ where: { id: workspace.id } });
    const where = { workspaceId: workspace.id };
    expect(
      await Promise.all([
        db().membership.count({ where }),
        db().integration.count({ where }),
        db().mcpServer.count({ where }),
        db().ssoConfig.count({ where }),
        db().observabilityConfig.count({ where }),
      ]),
    ).toEqual([0, 0, 0, 0, 0]);
    expect(await db().user.count({ where: { id: user.id } })).toBe(1);
  });
});
