// Secrets are write-mostly: viewers (and anyone asking with ?secrets=masked) read masks, members read
// values, and a PATCH that sends a mask back keeps the secret it stands for, which engines still get.
import { mapEngineConfigSecrets, maskSecret, SECRET_MASK_BULLETS, type TEngineConfig } from '@agentplane/contracts';
import { createAgentSecretBox } from '@agentplane/db';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  addToWorkspace,
  expectProblemShape,
  type ManagerTestContext,
  makePlatformOperator,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import {
  agentBody,
  createThroughApi,
  mcpServerBody,
  observabilityBody,
  whatsappBody,
} from '../testing/resource-fixtures.js';
import { MISMATCHED_MASK } from './keep-masked-secrets.js';

let ctx: ManagerTestContext;
/** Issues engine credentials, which no workspace role may. */
let operator: SignedInUser;
beforeAll(async () => {
  ctx = await startManagerTestApp();
  operator = await signUpUser(ctx.app);
  await makePlatformOperator(ctx, operator);
});
afterAll(() => ctx?.close());

// Every secret is distinct, so finding one in a body means that very field leaked. verifyToken is
// shorter than 16 characters: its mask is bullets alone.
const SECRET = {
  accessToken: 'EAAG-access-token-0123456789-tok1',
  verifyToken: 'verify-me-123',
  appSecret: 'app-secret-abcdefghijklmnop-sec2',
  header: 'Bearer mcp-header-value-0123456789-hdr3',
  env: 'mcp-env-value-0123456789abcdef-env4',
  apiKey: 'sk-model-api-key-0123456789abcdef-key5',
  traceHeader: 'otlp-header-value-0123456789-trc6',
};

type Workspace = {
  owner: SignedInUser;
  member: SignedInUser;
  viewer: SignedInUser;
  integrationId: string;
  mcpServerId: string;
  observabilityId: string;
  agentId: string;
};

const integrationBody = (config: Record<string, unknown> = {}) =>
  whatsappBody({
    config: {
      accessToken: SECRET.accessToken,
      phoneNumberId: '1065550123',
      verifyToken: SECRET.verifyToken,
      appSecret: SECRET.appSecret,
      ...config,
    },
  });

const traceExporterBody = () => observabilityBody({ headers: { Authorization: SECRET.traceHeader } });

const serverBody = () => mcpServerBody({ headers: { Authorization: SECRET.header }, env: { API_TOKEN: SECRET.env } });

const llmAgent = (resources: Record<string, unknown>, apiKey = SECRET.apiKey) =>
  agentBody(resources, { agent: { model: { provider: 'openai', name: 'gpt-4o-mini', apiKey } } });

/** A workspace with one resource of each kind holding secrets, an agent using them all, a member and a viewer. */
async function makeWorkspace(): Promise<Workspace> {
  const [owner, member, viewer] = await Promise.all([signUpUser(ctx.app), signUpUser(ctx.app), signUpUser(ctx.app)]);
  await addToWorkspace(owner, member, 'member');
  await addToWorkspace(owner, viewer, 'viewer');
  const integrationId = await createThroughApi(owner, '/api/v1/integrations/', integrationBody());
  const mcpServerId = await createThroughApi(owner, '/api/v1/mcp-servers/', serverBody());
  const observabilityId = await createThroughApi(owner, '/api/v1/observability/', traceExporterBody());
  const resources = {
    integration_ids: [integrationId],
    mcp_server_ids: [mcpServerId],
    observability_id: observabilityId,
  };
  const agentId = await createThroughApi(owner, '/api/v1/agents/', llmAgent(resources));
  return { owner, member, viewer, integrationId, mcpServerId, observabilityId, agentId };
}

/** Sends a request in the workspace's name (the header), as every non-owner must. */
const inWorkspace = (ws: Workspace, test: request.Test) => test.set('x-workspace-id', ws.owner.workspaceId);

/** Every GET (one and list) of the resources and the agent that hold secrets. */
const READ_PATHS = (ws: Workspace) => [
  `/api/v1/integrations/${ws.integrationId}`,
  '/api/v1/integrations/',
  `/api/v1/mcp-servers/${ws.mcpServerId}`,
  '/api/v1/mcp-servers/',
  `/api/v1/observability/${ws.observabilityId}`,
  '/api/v1/observability/',
  `/api/v1/agents/${ws.agentId}`,
  '/api/v1/agents/',
  '/api/v1/agents/?include=engine_config',
  `/api/v1/agents/${ws.agentId}/engine-config`,
];

function expectNoSecretIn(response: request.Response): void {
  expect(response.status).toBe(200);
  for (const secret of Object.values(SECRET)) expect(response.text).not.toContain(secret);
}

const MASKED_INTEGRATION_CONFIG = {
  accessToken: '••••••••tok1',
  verifyToken: SECRET_MASK_BULLETS,
  appSecret: '••••••••sec2',
};
const MASKED_SERVER = { headers: { Authorization: '••••••••hdr3' }, env: { API_TOKEN: '••••••••env4' } };
const MASKED_MODEL = { model: expect.objectContaining({ apiKey: '••••••••key5' }) };
const MASKED_TRACE_EXPORTER = { headers: { Authorization: '••••••••trc6' } };

function expectMaskedAgent(agent: Record<string, unknown>): void {
  expect(agent.agent).toMatchObject(MASKED_MODEL);
  const config = agent.engine_config as TEngineConfig;
  expect(config.agent.config).toMatchObject(MASKED_MODEL);
  expect(config.integrations[0]?.config).toMatchObject(MASKED_INTEGRATION_CONFIG);
  expect(config.mcp_servers[0]).toMatchObject(MASKED_SERVER);
  expect(config.observability).toMatchObject(MASKED_TRACE_EXPORTER);
}

/** The agent's config as its engine reads it: its own row, through its own role, opened with its own key. */
async function engineConfigAsTheEngineReadsIt(ws: Pick<Workspace, 'owner' | 'agentId'>): Promise<TEngineConfig> {
  const credentials = await operator.agent.post(`/api/v1/agents/${ws.agentId}/engine-credentials`);
  expect(credentials.status).toBe(201);
  const client = await ctx.database.connectClient({ url: credentials.body.database_url });
  try {
    const { rows } = await client.query<{ config: TEngineConfig }>(
      'SELECT config FROM engine_configs WHERE agent_id = $1',
      [ws.agentId],
    );
    expect(rows).toHaveLength(1);
    const box = createAgentSecretBox(credentials.body.agent_key, ws.agentId);
    return mapEngineConfigSecrets(rows[0]?.config as TEngineConfig, box.open);
  } finally {
    await client.end();
  }
}

function expectRealSecrets(config: TEngineConfig): void {
  expect(config.agent.config).toMatchObject({ model: expect.objectContaining({ apiKey: SECRET.apiKey }) });
  expect(config.integrations[0]?.config).toMatchObject({
    accessToken: SECRET.accessToken,
    verifyToken: SECRET.verifyToken,
    appSecret: SECRET.appSecret,
  });
  expect(config.mcp_servers[0]).toMatchObject({
    headers: { Authorization: SECRET.header },
    env: { API_TOKEN: SECRET.env },
  });
  expect(config.observability).toMatchObject({ headers: { Authorization: SECRET.traceHeader } });
}

/** A masked read turned into the PATCH body a form would send back. */
const integrationPatchOf = (read: request.Response) => ({ name: read.body.name, integration: read.body.integration });
const serverPatchOf = (read: request.Response) => ({ name: read.body.name, mcp_server: read.body.mcp_server });
const agentPatchOf = (read: request.Response) => ({
  name: read.body.name,
  framework: read.body.framework,
  agent: read.body.agent,
  resources: read.body.resources,
});

describe('a viewer', () => {
  it('reads every secret masked, in each resource and in the agent and its engine_config, one and listed', async () => {
    const ws = await makeWorkspace();
    for (const path of READ_PATHS(ws)) expectNoSecretIn(await inWorkspace(ws, ws.viewer.agent.get(path)));

    const integration = await inWorkspace(ws, ws.viewer.agent.get(`/api/v1/integrations/${ws.integrationId}`));
    expect(integration.body.integration.config).toEqual({
      ...MASKED_INTEGRATION_CONFIG,
      phoneNumberId: '1065550123',
      apiVersion: 'v21.0',
    });
    const servers = await inWorkspace(ws, ws.viewer.agent.get('/api/v1/mcp-servers/'));
    expect(servers.body[0].mcp_server).toMatchObject({ ...MASKED_SERVER, url: 'https://mcp.example.com/mcp' });
    const exporter = await inWorkspace(ws, ws.viewer.agent.get(`/api/v1/observability/${ws.observabilityId}`));
    expect(exporter.body.observability).toMatchObject({
      ...MASKED_TRACE_EXPORTER,
      endpoint: 'https://otel.example.com/v1/traces',
    });
    const agents = await inWorkspace(ws, ws.viewer.agent.get('/api/v1/agents/?include=engine_config'));
    expectMaskedAgent(agents.body[0]);
    expectMaskedAgent((await inWorkspace(ws, ws.viewer.agent.get(`/api/v1/agents/${ws.agentId}`))).body);
  });

  it('still may not PATCH, masks or not', async () => {
    const ws = await makeWorkspace();
    const read = (path: string) => inWorkspace(ws, ws.viewer.agent.get(path));
    const patch = (path: string, body: object) => inWorkspace(ws, ws.viewer.agent.patch(path).send(body));
    const integrationPath = `/api/v1/integrations/${ws.integrationId}`;
    const serverPath = `/api/v1/mcp-servers/${ws.mcpServerId}`;
    const agentPath = `/api/v1/agents/${ws.agentId}`;
    expectProblemShape(await patch(integrationPath, integrationPatchOf(await read(integrationPath))), 403);
    expectProblemShape(await patch(serverPath, serverPatchOf(await read(serverPath))), 403);
    expectProblemShape(await patch(agentPath, agentPatchOf(await read(agentPath))), 403);
  });
});

describe('members, admins and owners', () => {
  it('read the secret values as strings', async () => {
    const ws = await makeWorkspace();
    for (const user of [ws.member, ws.owner]) {
      const integration = await inWorkspace(ws, user.agent.get(`/api/v1/integrations/${ws.integrationId}`));
      expect(integration.body.integration.config).toMatchObject({
        accessToken: SECRET.accessToken,
        verifyToken: SECRET.verifyToken,
        appSecret: SECRET.appSecret,
      });
      const servers = await inWorkspace(ws, user.agent.get('/api/v1/mcp-servers/'));
      expect(servers.body[0].mcp_server).toMatchObject({
        headers: { Authorization: SECRET.header },
        env: { API_TOKEN: SECRET.env },
      });
      const agent = await inWorkspace(ws, user.agent.get(`/api/v1/agents/${ws.agentId}`));
      expectRealSecrets(agent.body.engine_config);
    }
  });

  it('read masks when they ask with ?secrets=masked, on every read and on the answers to writes', async () => {
    const ws = await makeWorkspace();
    for (const path of READ_PATHS(ws)) {
      expectNoSecretIn(await inWorkspace(ws, ws.member.agent.get(path).query({ secrets: 'masked', limit: '10' })));
    }
    const created = await inWorkspace(
      ws,
      ws.member.agent.post('/api/v1/integrations/').query({ secrets: 'masked' }).send(integrationBody()),
    );
    expect(created.status).toBe(201);
    expect(created.body.integration.config).toMatchObject(MASKED_INTEGRATION_CONFIG);
    const patched = await inWorkspace(
      ws,
      ws.member.agent.patch(`/api/v1/agents/${ws.agentId}`).query({ secrets: 'masked' }).send(llmAgent({})),
    );
    expect(patched.status).toBe(200);
    expect(patched.text).not.toContain(SECRET.apiKey);
    expect(patched.body.agent).toMatchObject(MASKED_MODEL);
  });

  it('get a 400 for any other value of secrets, and the usual answers around it', async () => {
    const ws = await makeWorkspace();
    const stranger = await signUpUser(ctx.app);
    expectProblemShape(
      await inWorkspace(
        ws,
        ws.member.agent.get(`/api/v1/integrations/${ws.integrationId}`).query({ secrets: 'plain' }),
      ),
      400,
    );
    expectProblemShape(
      await inWorkspace(ws, ws.member.agent.get('/api/v1/agents/?secrets=masked&secrets=masked')),
      400,
    );
    expectProblemShape(await stranger.agent.get(`/api/v1/agents/${ws.agentId}?secrets=masked`), 404);
    expectProblemShape(await request(ctx.app).get(`/api/v1/mcp-servers/${ws.mcpServerId}?secrets=masked`), 401);
  });
});

describe('a PATCH that sends masks back', () => {
  it('keeps every secret, and the engine still gets the real ones', async () => {
    const ws = await makeWorkspace();
    const read = (path: string) => inWorkspace(ws, ws.member.agent.get(path).query({ secrets: 'masked' }));
    const patch = (path: string, body: object) => inWorkspace(ws, ws.member.agent.patch(path).send(body));
    const integrationPath = `/api/v1/integrations/${ws.integrationId}`;
    const serverPath = `/api/v1/mcp-servers/${ws.mcpServerId}`;
    const agentPath = `/api/v1/agents/${ws.agentId}`;

    // Each form changes one thing besides round-tripping the masks, so every save republishes the agent.
    const integrationForm = integrationPatchOf(await read(integrationPath));
    integrationForm.integration.config.phoneNumberId = '1065550999';
    const integration = await patch(integrationPath, integrationForm);
    expect(integration.status).toBe(200);
    expect(integration.body.integration.config).toMatchObject({
      accessToken: SECRET.accessToken,
      verifyToken: SECRET.verifyToken,
      appSecret: SECRET.appSecret,
      phoneNumberId: '1065550999',
    });

    const serverForm = serverPatchOf(await read(serverPath));
    serverForm.mcp_server.timeoutSeconds = 12;
    const server = await patch(serverPath, serverForm);
    expect(server.status).toBe(200);
    expect(server.body.mcp_server).toMatchObject({ headers: { Authorization: SECRET.header }, timeoutSeconds: 12 });

    const agentForm = agentPatchOf(await read(agentPath));
    agentForm.agent.instructions = 'Be brief.';
    const agent = await patch(agentPath, agentForm);
    expect(agent.status).toBe(200);
    expect(agent.body.agent.model.apiKey).toBe(SECRET.apiKey);
    expect(agent.body.engine_config_version).toBe(4);

    const published = await engineConfigAsTheEngineReadsIt(ws);
    expectRealSecrets(published);
    expect(published.integrations[0]?.config).toMatchObject({ phoneNumberId: '1065550999' });
    expect(published.mcp_servers[0]?.timeoutSeconds).toBe(12);
    expect(published.agent.config).toMatchObject({ instructions: 'Be brief.' });
  });

  it('changes nothing when nothing else changed: the engine config keeps its version', async () => {
    const ws = await makeWorkspace();
    const read = (path: string) => inWorkspace(ws, ws.member.agent.get(path).query({ secrets: 'masked' }));
    const integrationPath = `/api/v1/integrations/${ws.integrationId}`;
    const agentPath = `/api/v1/agents/${ws.agentId}`;
    const patched = await inWorkspace(
      ws,
      ws.member.agent.patch(integrationPath).send(integrationPatchOf(await read(integrationPath))),
    );
    expect(patched.status).toBe(200);
    const agent = await inWorkspace(ws, ws.member.agent.patch(agentPath).send(agentPatchOf(await read(agentPath))));
    expect(agent.status).toBe(200);
    expect(agent.body.engine_config_version).toBe(1);
  });

  it("keeps an observability config's secrets, and the engine of an agent using it gets the real ones", async () => {
    const ws = await makeWorkspace();
    const path = `/api/v1/observability/${ws.observabilityId}`;
    const read = await inWorkspace(ws, ws.member.agent.get(path).query({ secrets: 'masked' }));
    expect(read.body.observability).toMatchObject(MASKED_TRACE_EXPORTER);
    const form = { name: read.body.name, observability: { ...read.body.observability, capture_content: true } };
    const patched = await inWorkspace(ws, ws.member.agent.patch(path).send(form));
    expect(patched.status).toBe(200);
    expect(patched.body.observability).toMatchObject({
      headers: { Authorization: SECRET.traceHeader },
      capture_content: true,
    });
    const published = await engineConfigAsTheEngineReadsIt(ws);
    expectRealSecrets(published);
    expect(published.observability?.capture_content).toBe(true);
  });

  it('may mix masks and new secrets: each mask keeps its own field or key', async () => {
    const ws = await makeWorkspace();
    const serverPath = `/api/v1/mcp-servers/${ws.mcpServerId}`;
    const form = serverPatchOf(await inWorkspace(ws, ws.member.agent.get(serverPath).query({ secrets: 'masked' })));
    form.mcp_server.headers['X-Extra'] = 'a-new-header-secret';
    form.mcp_server.env = { ...form.mcp_server.env, OTHER_TOKEN: 'a-new-env-secret' };
    const patched = await inWorkspace(ws, ws.member.agent.patch(serverPath).send(form));
    expect(patched.status).toBe(200);
    expect(patched.body.mcp_server).toMatchObject({
      headers: { Authorization: SECRET.header, 'X-Extra': 'a-new-header-secret' },
      env: { API_TOKEN: SECRET.env, OTHER_TOKEN: 'a-new-env-secret' },
    });
  });
});

describe('a mask that does not stand for the stored secret', () => {
  it('is a 422 naming the field, and changes nothing', async () => {
    const ws = await makeWorkspace();
    const patch = (path: string, body: object) => inWorkspace(ws, ws.member.agent.patch(path).send(body));
    const expectRefused = (response: request.Response, path: string) => {
      expectProblemShape(response, 422);
      expect(response.body.errors).toEqual([{ path, message: MISMATCHED_MASK }]);
    };

    // A forged tail, and the bare bullets where the stored secret's mask has a tail.
    expectRefused(
      await patch(`/api/v1/integrations/${ws.integrationId}`, integrationBody({ accessToken: '••••••••abcd' })),
      'integration.config.accessToken',
    );
    expectRefused(
      await patch(`/api/v1/integrations/${ws.integrationId}`, integrationBody({ appSecret: SECRET_MASK_BULLETS })),
      'integration.config.appSecret',
    );
    // A header that is not stored under this name, even though its mask matches another one's.
    expectRefused(
      await patch(
        `/api/v1/mcp-servers/${ws.mcpServerId}`,
        mcpServerBody({ headers: { 'X-Other': maskSecret(SECRET.header) }, env: { API_TOKEN: SECRET.env } }),
      ),
      'mcp_server.headers["X-Other"]',
    );
    expectRefused(
      await patch(`/api/v1/agents/${ws.agentId}`, llmAgent({}, maskSecret('sk-some-other-key-0123456789-xyz9'))),
      'agent.model.apiKey',
    );
    expectRefused(
      await patch(
        `/api/v1/observability/${ws.observabilityId}`,
        observabilityBody({ headers: { Authorization: '••••••••abcd' } }),
      ),
      'observability.headers.Authorization',
    );

    const published = await engineConfigAsTheEngineReadsIt(ws);
    expectRealSecrets(published);
    const agent = await inWorkspace(ws, ws.member.agent.get(`/api/v1/agents/${ws.agentId}`));
    expect(agent.body.engine_config_version).toBe(1);
  });

  it('is a 422 on create, where nothing is stored, and where no secret is stored in its place', async () => {
    const ws = await makeWorkspace();
    const created = await inWorkspace(
      ws,
      ws.member.agent.post('/api/v1/integrations/').send(integrationBody({ verifyToken: SECRET_MASK_BULLETS })),
    );
    expectProblemShape(created, 422);
    expect(created.body.errors).toEqual([{ path: 'integration.config.verifyToken', message: MISMATCHED_MASK }]);
    const agent = await inWorkspace(ws, ws.member.agent.post('/api/v1/agents/').send(llmAgent({}, '••••••••key5')));
    expectProblemShape(agent, 422);

    const bare = await inWorkspace(
      ws,
      ws.member.agent.post('/api/v1/integrations/').send(integrationBody({ appSecret: undefined })),
    );
    expect(bare.status).toBe(201);
    const patched = await inWorkspace(
      ws,
      ws.member.agent
        .patch(`/api/v1/integrations/${bare.body.id}`)
        .send(integrationBody({ appSecret: maskSecret(SECRET.appSecret) })),
    );
    expectProblemShape(patched, 422);
    expect(patched.body.errors).toEqual([{ path: 'integration.config.appSecret', message: MISMATCHED_MASK }]);
  });
});

describe('a PATCH with masks racing a PATCH with a new secret', () => {
  /** How many backends of this suite's database wait for a lock. */
  async function lockWaiters(): Promise<number> {
    const [row] = await ctx.database.prisma.$queryRaw<{ waiting: number }[]>`
      SELECT count(*)::int AS waiting FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`;
    return row?.waiting ?? 0;
  }

  it('is refused when the new secret commits between its read and its write, never putting the old one back', async () => {
    const ws = await makeWorkspace();
    const path = `/api/v1/integrations/${ws.integrationId}`;
    const masked = integrationPatchOf(await inWorkspace(ws, ws.member.agent.get(path).query({ secrets: 'masked' })));
    const fresh = 'EAAG-rotated-token-0123456789-new1';

    // Hold the row, so that both PATCHes queue behind this transaction: the new secret's first.
    const holder = await ctx.database.connectClient();
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM integrations WHERE id = $1 FOR UPDATE', [ws.integrationId]);
    const withFresh = inWorkspace(ws, ws.owner.agent.patch(path).send(integrationBody({ accessToken: fresh }))).then(
      (response) => response,
    );
    await waitUntil(async () => (await lockWaiters()) === 1, { what: 'the PATCH with the new secret to wait' });
    const withMasks = inWorkspace(ws, ws.member.agent.patch(path).send(masked)).then((response) => response);
    await waitUntil(async () => (await lockWaiters()) === 2, { what: 'the PATCH with masks to wait' });
    await holder.query('COMMIT');

    expect((await withFresh).status).toBe(200);
    const refused = await withMasks;
    expectProblemShape(refused, 422);
    expect(refused.body.errors).toEqual([{ path: 'integration.config.accessToken', message: MISMATCHED_MASK }]);
    const stored = await inWorkspace(ws, ws.member.agent.get(path));
    expect(stored.body.integration.config.accessToken).toBe(fresh);
  });
});

describe("the query of a URL an engine connects to (an MCP url, a model's baseUrl, a trace endpoint)", () => {
  const QUERY = {
    mcp: 'api_key=mcp-url-query-0123456789-qry7',
    model: 'key=model-url-query-0123456789-qry8',
    trace: 'key=trace-url-query-0123456789-qry9',
  };
  const URLS = {
    mcp: `https://mcp.example.com/mcp?${QUERY.mcp}`,
    model: `https://llm.example.com/v1?${QUERY.model}`,
    trace: `https://otel.example.com/v1/traces?${QUERY.trace}`,
  };
  const withBaseUrl = (resources: Record<string, unknown>, baseUrl = URLS.model) =>
    agentBody(resources, { agent: { model: { provider: 'openai', name: 'gpt-4o-mini', baseUrl } } });

  /** A workspace whose MCP server, trace exporter and agent each carry a key in a URL's query. */
  async function makeQueryWorkspace() {
    const [owner, member, viewer] = await Promise.all([signUpUser(ctx.app), signUpUser(ctx.app), signUpUser(ctx.app)]);
    await addToWorkspace(owner, member, 'member');
    await addToWorkspace(owner, viewer, 'viewer');
    const mcpServerId = await createThroughApi(owner, '/api/v1/mcp-servers/', mcpServerBody({ url: URLS.mcp }));
    const observabilityId = await createThroughApi(
      owner,
      '/api/v1/observability/',
      observabilityBody({ endpoint: URLS.trace }),
    );
    const resources = { mcp_server_ids: [mcpServerId], observability_id: observabilityId };
    const agentId = await createThroughApi(owner, '/api/v1/agents/', withBaseUrl(resources));
    return { owner, member, viewer, mcpServerId, observabilityId, agentId, resources };
  }

  function expectNoQueryIn(text: string): void {
    for (const query of Object.values(QUERY)) expect(text).not.toContain(query);
  }

  it('is masked for viewers, the rest of the URL readable, in the resources, the agent and its engine_config', async () => {
    const ws = await makeQueryWorkspace();
    const read = (path: string) => ws.viewer.agent.get(path).set('x-workspace-id', ws.owner.workspaceId);
    for (const path of [
      `/api/v1/mcp-servers/${ws.mcpServerId}`,
      '/api/v1/mcp-servers/',
      `/api/v1/observability/${ws.observabilityId}`,
      `/api/v1/agents/${ws.agentId}`,
      '/api/v1/agents/?include=engine_config',
      `/api/v1/agents/${ws.agentId}/engine-config`,
    ]) {
      const response = await read(path);
      expect(response.status).toBe(200);
      expectNoQueryIn(response.text);
    }
    const agent = (await read(`/api/v1/agents/${ws.agentId}`)).body;
    expect(agent.agent.model.baseUrl).toBe('https://llm.example.com/v1?••••••••qry8');
    expect(agent.engine_config.mcp_servers[0].url).toBe('https://mcp.example.com/mcp?••••••••qry7');
    expect(agent.engine_config.observability.endpoint).toBe('https://otel.example.com/v1/traces?••••••••qry9');
  });

  it('is sealed at rest, in every row that holds it, and its engine opens the real URLs', async () => {
    const ws = await makeQueryWorkspace();
    const rows = await ctx.database.prisma.$queryRaw<{ text: string }[]>`
      SELECT config::text AS text FROM mcp_servers WHERE id = ${ws.mcpServerId}::uuid
      UNION ALL SELECT config::text FROM observability_configs WHERE id = ${ws.observabilityId}::uuid
      UNION ALL SELECT config::text FROM agents WHERE id = ${ws.agentId}::uuid
      UNION ALL SELECT config::text FROM engine_configs WHERE agent_id = ${ws.agentId}::uuid`;
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      expectNoQueryIn(row.text);
      expect(row.text).toMatch(/\?enc:v1:/);
    }
    const published = await engineConfigAsTheEngineReadsIt(ws);
    expect(published.mcp_servers[0]?.url).toBe(URLS.mcp);
    expect(published.observability).toMatchObject({ endpoint: URLS.trace });
    expect(published.agent.config).toMatchObject({ model: expect.objectContaining({ baseUrl: URLS.model }) });
  });

  it('is kept by a PATCH that sends the masked URL back, and a mask of another query is a 422', async () => {
    const ws = await makeQueryWorkspace();
    const agentPath = `/api/v1/agents/${ws.agentId}`;
    const masked = await ws.member.agent
      .get(agentPath)
      .set('x-workspace-id', ws.owner.workspaceId)
      .query({ secrets: 'masked' });
    const form = agentPatchOf(masked);
    form.agent.instructions = 'Be brief.';
    const kept = await ws.member.agent.patch(agentPath).set('x-workspace-id', ws.owner.workspaceId).send(form);
    expect(kept.status).toBe(200);
    expect(kept.body.agent.model.baseUrl).toBe(URLS.model);
    const forged = await ws.member.agent
      .patch(agentPath)
      .set('x-workspace-id', ws.owner.workspaceId)
      .send(withBaseUrl(ws.resources, 'https://llm.example.com/v1?••••••••abcd'));
    expectProblemShape(forged, 422);
    expect(forged.body.errors).toEqual([{ path: 'agent.model.baseUrl', message: MISMATCHED_MASK }]);
  });

  it('comes with no user name or password: those are a 422 naming the field', async () => {
    const ws = await makeQueryWorkspace();
    const post = (path: string, body: object) =>
      ws.member.agent.post(path).set('x-workspace-id', ws.owner.workspaceId).send(body);
    const refusals = [
      [await post('/api/v1/mcp-servers/', mcpServerBody({ url: 'https://u:p@mcp.example.com/mcp' })), 'mcp_server.url'],
      [
        await post('/api/v1/observability/', observabilityBody({ endpoint: 'https://key@otel.example.com/v1/traces' })),
        'observability.endpoint',
      ],
      [await post('/api/v1/agents/', withBaseUrl({}, 'https://u:p@llm.example.com/v1')), 'agent.model.baseUrl'],
    ] as const;
    for (const [response, path] of refusals) {
      expectProblemShape(response, 422);
      expect(response.body.errors.map((error: { path: string }) => error.path)).toEqual([path]);
    }
  });
});
