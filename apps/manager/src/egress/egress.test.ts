// The write-time egress check, through the API: a tenant URL whose host is a literal address in a
// refused range is a 422 naming the field (on create and on PATCH), a host name is left to the engine,
// and EGRESS_ALLOW lets the operator open a range.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadManagerConfig } from '../config.js';
import {
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
  TEST_SECRETS_KEY,
} from '../testing/manager-test-app.js';
import { agentBody, mcpServerBody, observabilityBody, ssoBody } from '../testing/resource-fixtures.js';

const REFUSED_HOSTS = ['127.0.0.1', '169.254.169.254', '10.0.0.1', '[::ffff:127.0.0.1]', '[fd00:ec2::254]', '[::1]'];

// The one stdio command line the operator permits here (MCP_STDIO_COMMANDS), for the stdio case below.
const STDIO_COMMAND = '/usr/local/bin/mcp-server';

const openaiAt = (baseUrl: string) => ({ agent: { model: { provider: 'openai', name: 'gpt', baseUrl } } });

describe('with nothing allowed', () => {
  let ctx: ManagerTestContext;
  let user: SignedInUser;

  beforeAll(async () => {
    ctx = await startManagerTestApp({
      EGRESS_ALLOW: '',
      MCP_STDIO_COMMANDS: JSON.stringify([{ command: STDIO_COMMAND, args: [], extraArgs: false }]),
    });
    user = await signUpUser(ctx.app);
  });

  afterAll(() => ctx?.close());

  async function expectRefused(
    request: Promise<{ status: number; body: { detail?: string; errors?: { path: string }[] } }>,
    path: string,
  ) {
    const response = await request;
    expectProblemShape(response as never, 422);
    expect(response.body.errors).toEqual([{ path, message: expect.stringMatching(/may not reach.*EGRESS_ALLOW/) }]);
    // The summary a client shows first names the settings too, the manager's and the engines'.
    expect(response.body.detail).toMatch(/may not reach.*EGRESS_ALLOW.*ENGINE_EGRESS_ALLOW/);
  }

  it.each(REFUSED_HOSTS)(
    'refuses an MCP url, a model baseUrl, an SSO issuer and jwksUri, a trace exporter on %s',
    async (host) => {
      await expectRefused(
        user.agent.post('/api/v1/mcp-servers/').send(mcpServerBody({ url: `http://${host}/mcp` })),
        'mcp_server.url',
      );
      await expectRefused(
        user.agent.post('/api/v1/mcp-servers/').send(mcpServerBody({ transport: 'websocket', url: `ws://${host}:9/` })),
        'mcp_server.url',
      );
      await expectRefused(
        user.agent.post('/api/v1/agents/').send(agentBody({}, openaiAt(`http://${host}/v1`))),
        'agent.model.baseUrl',
      );
      await expectRefused(
        user.agent.post('/api/v1/sso/').send(ssoBody({ issuer: `https://${host}/realm` })),
        'sso.issuer',
      );
      await expectRefused(
        user.agent.post('/api/v1/sso/').send(ssoBody({ jwksUri: `https://${host}/keys` })),
        'sso.jwksUri',
      );
      await expectRefused(
        user.agent
          .post('/api/v1/observability/')
          .send(observabilityBody({ endpoint: `http://${host}:4318/v1/traces` })),
        'observability.endpoint',
      );
      await expectRefused(
        user.agent
          .post('/api/v1/observability/')
          .send(observabilityBody({ provider: 'PHOENIX', endpoint: `https://${host}/v1/traces`, headers: undefined })),
        'observability.endpoint',
      );
      await expectRefused(
        user.agent.post('/api/v1/observability/').send({
          name: 'langfuse',
          observability: { provider: 'LANGFUSE', host: `http://${host}:3000`, public_key: 'pk', secret_key: 'sk' },
        }),
        'observability.host',
      );
    },
  );

  it('refuses the same on a PATCH, and keeps what was stored', async () => {
    const mcp = await user.agent.post('/api/v1/mcp-servers/').send(mcpServerBody());
    expect(mcp.status).toBe(201);
    await expectRefused(
      user.agent.patch(`/api/v1/mcp-servers/${mcp.body.id}`).send(mcpServerBody({ url: 'http://169.254.169.254/mcp' })),
      'mcp_server.url',
    );
    const agent = await user.agent.post('/api/v1/agents/').send(agentBody({}, openaiAt('https://llm.example.com/v1')));
    expect(agent.status).toBe(201);
    await expectRefused(
      user.agent.patch(`/api/v1/agents/${agent.body.id}`).send(agentBody({}, openaiAt('http://10.0.0.1/v1'))),
      'agent.model.baseUrl',
    );
    expect((await user.agent.get(`/api/v1/mcp-servers/${mcp.body.id}`)).body.mcp_server.url).toBe(
      'https://mcp.example.com/mcp',
    );
    expect((await user.agent.get(`/api/v1/agents/${agent.body.id}`)).body.agent.model.baseUrl).toBe(
      'https://llm.example.com/v1',
    );
  });

  it('leaves host names to the engine, which checks what they resolve to, and public addresses pass', async () => {
    for (const url of ['http://localhost:9/mcp', 'http://8.8.8.8/mcp', 'https://mcp.example.com/mcp']) {
      expect((await user.agent.post('/api/v1/mcp-servers/').send(mcpServerBody({ url }))).status).toBe(201);
    }
  });

  it('ignores the url a stdio server left behind from another transport', async () => {
    const body = mcpServerBody({ transport: 'stdio', command: STDIO_COMMAND, url: 'http://127.0.0.1/mcp' });
    expect((await user.agent.post('/api/v1/mcp-servers/').send(body)).status).toBe(201);
    // The url alone would be refused: the 201 is not the allow-list letting everything through.
    const leftover = mcpServerBody({ url: 'http://127.0.0.1/mcp' });
    expect((await user.agent.post('/api/v1/mcp-servers/').send(leftover)).status).toBe(422);
  });
});

describe('EGRESS_ALLOW', () => {
  let ctx: ManagerTestContext;
  let user: SignedInUser;

  beforeAll(async () => {
    ctx = await startManagerTestApp({ EGRESS_ALLOW: '10.0.0.0/8,fd00:ec2::254' });
    user = await signUpUser(ctx.app);
  });

  afterAll(() => ctx?.close());

  it('lets the operator open ranges and addresses, and nothing beside them', async () => {
    const allowed = ['http://10.0.0.1/mcp', 'http://10.200.0.1/mcp', 'http://[fd00:ec2::254]/mcp'];
    for (const url of allowed) {
      expect((await user.agent.post('/api/v1/mcp-servers/').send(mcpServerBody({ url }))).status).toBe(201);
    }
    expect(
      (await user.agent.post('/api/v1/mcp-servers/').send(mcpServerBody({ url: 'http://127.0.0.1/mcp' }))).status,
    ).toBe(422);
  });

  it('is read once at start-up, and a bad entry stops the manager naming the variable', () => {
    const env = { DATABASE_URL: 'postgresql://x/y', SECRETS_KEY: TEST_SECRETS_KEY };
    expect(() => loadManagerConfig({ ...env, EGRESS_ALLOW: '10.0.0.0/8,not a host' })).toThrow(
      /EGRESS_ALLOW: "not a host" is not a host name, an IP address or a CIDR range/,
    );
  });
});
