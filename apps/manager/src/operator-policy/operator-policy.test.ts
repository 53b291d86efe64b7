// What the operator lets a tenant configure, through the API: stdio command lines (MCP_STDIO_COMMANDS),
// stdio working directories (MCP_STDIO_CWD_ROOT) and key variables (MODEL_API_KEY_ENVS). Anything else
// is a 422 naming the setting, on create and on PATCH; secure by default when nothing is set.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type request from 'supertest';
import {
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { agentBody, mcpServerBody } from '../testing/resource-fixtures.js';

const SERVER_JS = '/opt/mcp/server.js';
const PERMITTED = { command: '/usr/bin/node', args: [SERVER_JS, 'stdio'] };
const FILES = { command: '/usr/bin/node', args: ['/opt/mcp/files.js'] };
const WITH_EXTRAS = { ...FILES, extraArgs: '/srv/data/[a-z]+' };

let secure: ManagerTestContext;
let permissive: ManagerTestContext;
let tenant: SignedInUser;
let operatorTenant: SignedInUser;

beforeAll(async () => {
  [secure, permissive] = await Promise.all([
    startManagerTestApp(),
    startManagerTestApp({
      MCP_STDIO_COMMANDS: JSON.stringify([PERMITTED, WITH_EXTRAS]),
      MCP_STDIO_CWD_ROOT: '/srv/mcp',
      MODEL_API_KEY_ENVS: 'GROQ_API_KEY',
    }),
  ]);
  [tenant, operatorTenant] = await Promise.all([signUpUser(secure.app), signUpUser(permissive.app)]);
});
afterAll(() => Promise.all([secure?.close(), permissive?.close()]));

const stdio = (overrides: Record<string, unknown> = {}) =>
  mcpServerBody({ transport: 'stdio', url: undefined, headers: {}, ...PERMITTED, ...overrides });

function expectRefusedBy(response: request.Response, setting: string, path: string) {
  expectProblemShape(response, 422);
  expect(response.body.detail).toContain(setting);
  expect(response.body.errors).toEqual([{ path, message: expect.stringContaining(setting) }]);
}

describe('stdio MCP servers', () => {
  it('are all refused when the operator permits none (the default), on create and on PATCH', async () => {
    expectRefusedBy(
      await tenant.agent.post('/api/v1/mcp-servers/').send(stdio()),
      'MCP_STDIO_COMMANDS',
      'mcp_server.command',
    );
    const http = await tenant.agent.post('/api/v1/mcp-servers/').send(mcpServerBody());
    expect(http.status).toBe(201);
    expectRefusedBy(
      await tenant.agent.patch(`/api/v1/mcp-servers/${http.body.id}`).send(stdio()),
      'MCP_STDIO_COMMANDS',
      'mcp_server.command',
    );
    const unchanged = await tenant.agent.get(`/api/v1/mcp-servers/${http.body.id}`);
    expect(unchanged.body.mcp_server.transport).toBe('streamable_http');
  });

  it('accept exactly a permitted command line, and extra arguments only where the entry allows them', async () => {
    const created = await operatorTenant.agent.post('/api/v1/mcp-servers/').send(stdio());
    expect(created.status).toBe(201);
    const patched = await operatorTenant.agent
      .patch(`/api/v1/mcp-servers/${created.body.id}`)
      .send(stdio({ ...FILES, args: [...FILES.args, '/srv/data/reports', '/srv/data/logs'] }));
    expect(patched.status).toBe(200);
  });

  it.each([
    ['the interpreter with code of its own', { args: ['-e', 'require("child_process").exec("id")'] }],
    ['the interpreter alone', { args: [] }],
    ['a shell', { command: '/bin/sh', args: ['-c', 'id'] }],
    ['the permitted command found on PATH', { command: 'node' }],
    ['an argument after an entry that allows none', { args: [SERVER_JS, 'stdio', '--inspect'] }],
    ['the pinned arguments in another order', { args: ['stdio', SERVER_JS] }],
    ['an extra argument the pattern does not match as a whole', { ...FILES, args: [...FILES.args, '/srv/data/x;id'] }],
  ])('refuse %s, naming MCP_STDIO_COMMANDS', async (_case, overrides) => {
    expectRefusedBy(
      await operatorTenant.agent.post('/api/v1/mcp-servers/').send(stdio(overrides)),
      'MCP_STDIO_COMMANDS',
      'mcp_server.command',
    );
  });

  it.each(['NODE_OPTIONS', 'LD_PRELOAD', 'PATH', 'PYTHONPATH', 'DYLD_INSERT_LIBRARIES', 'npm_config_registry'])(
    'refuse env %s, naming the field',
    async (name) => {
      const response = await operatorTenant.agent.post('/api/v1/mcp-servers/').send(stdio({ env: { [name]: 'x' } }));
      expectProblemShape(response, 422);
      expect(response.body.errors).toEqual([{ path: `mcp_server.env.${name}`, message: expect.any(String) }]);
    },
  );

  it('take a cwd only inside MCP_STDIO_CWD_ROOT, and none when it is unset', async () => {
    expect(
      (await operatorTenant.agent.post('/api/v1/mcp-servers/').send(stdio({ cwd: '/srv/mcp/files' }))).status,
    ).toBe(201);
    expectRefusedBy(
      await operatorTenant.agent.post('/api/v1/mcp-servers/').send(stdio({ cwd: '/srv' })),
      'MCP_STDIO_CWD_ROOT',
      'mcp_server.cwd',
    );
    expectRefusedBy(
      await operatorTenant.agent.post('/api/v1/mcp-servers/').send(stdio({ cwd: '/srv/mcp-other' })),
      'MCP_STDIO_CWD_ROOT',
      'mcp_server.cwd',
    );
    const relative = await operatorTenant.agent.post('/api/v1/mcp-servers/').send(stdio({ cwd: '/srv/mcp/../etc' }));
    expectProblemShape(relative, 422);
    expect(relative.body.errors).toEqual([{ path: 'mcp_server.cwd', message: expect.any(String) }]);
  });
});

describe('LLM agents', () => {
  const withModel = (model: Record<string, unknown>) =>
    agentBody({}, { agent: { model: { provider: 'openai', name: 'gpt-4o-mini', ...model } } });

  it.each(['SECRETS_KEY', 'DATABASE_URL', 'OPENAI_API_KEY', 'HOME'])(
    'refuse apiKeyEnv %s when MODEL_API_KEY_ENVS does not list it',
    async (variable) => {
      expectRefusedBy(
        await operatorTenant.agent.post('/api/v1/agents/').send(withModel({ apiKeyEnv: variable })),
        'MODEL_API_KEY_ENVS',
        'agent.model.apiKeyEnv',
      );
    },
  );

  it('refuse every apiKeyEnv by default, on create and on PATCH', async () => {
    expectRefusedBy(
      await tenant.agent.post('/api/v1/agents/').send(withModel({ apiKeyEnv: 'GROQ_API_KEY' })),
      'MODEL_API_KEY_ENVS',
      'agent.model.apiKeyEnv',
    );
    const created = await tenant.agent.post('/api/v1/agents/').send(withModel({ apiKey: 'sk-own' }));
    expect(created.status).toBe(201);
    expectRefusedBy(
      await tenant.agent.patch(`/api/v1/agents/${created.body.id}`).send(withModel({ apiKeyEnv: 'GROQ_API_KEY' })),
      'MODEL_API_KEY_ENVS',
      'agent.model.apiKeyEnv',
    );
  });

  it('accept an apiKeyEnv the operator listed', async () => {
    const created = await operatorTenant.agent.post('/api/v1/agents/').send(withModel({ apiKeyEnv: 'GROQ_API_KEY' }));
    expect(created.status).toBe(201);
    expect(created.body.engine_config.agent.config.model.apiKeyEnv).toBe('GROQ_API_KEY');
  });
});

describe('agent module paths', () => {
  it.each([
    ['CUSTOM', 'module', '/etc/agents/agent.js:createAgent'],
    ['CUSTOM', 'module', '../agents/agent.js:createAgent'],
    ['LANGGRAPH', 'graph', 'graphs/../../outside.js:graph'],
    ['LANGGRAPH', 'graph', 'node_modules/some-package/index.js:graph'],
  ])('refuse a %s %s of %s', async (framework, field, reference) => {
    const response = await tenant.agent
      .post('/api/v1/agents/')
      .send(agentBody({}, { framework, agent: { [field]: reference } }));
    expectProblemShape(response, 422);
    expect(response.body.errors).toEqual([{ path: `agent.${field}`, message: expect.any(String) }]);
  });
});
