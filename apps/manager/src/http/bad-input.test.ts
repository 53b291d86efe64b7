// What a hostile client sends: every answer is a 4xx problem naming what is wrong, never a 500.
import { JSON_BODY_MAX_BYTES, MCP_ARGS_MAX_ITEMS } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { agentBody, guardrailBody, mcpServerBody, ssoBody, whatsappBody } from '../testing/resource-fixtures.js';
import { API_PREFIX } from './api-router.js';

let ctx: ManagerTestContext;
let owner: SignedInUser;
beforeAll(async () => {
  ctx = await startManagerTestApp();
  owner = await signUpUser(ctx.app);
});
afterAll(() => ctx?.close());

/** JSON text with `marker` replaced by a raw escape, so that \u0000 and lone surrogates arrive as written. */
function withEscape(body: object, marker: string, rawEscape: string): string {
  return JSON.stringify(body).replaceAll(marker, rawEscape);
}

function expectFieldNamed(response: request.Response, status: number, path: string): void {
  expectProblemShape(response, status);
  expect(response.body.errors).toEqual(expect.arrayContaining([{ path, message: expect.any(String) }]));
}

const MARK = '@@';

describe('characters PostgreSQL cannot store', () => {
  const stored: [string, string, object, string][] = [
    ['an integration name', '/integrations/', { ...whatsappBody(), name: MARK }, 'name'],
    [
      'a WhatsApp token',
      '/integrations/',
      whatsappBody({ config: { accessToken: MARK, phoneNumberId: '1', verifyToken: 'v' } }),
      'integration.config.accessToken',
    ],
    ['an MCP arg', '/mcp-servers/', mcpServerBody({ args: [MARK] }), 'mcp_server.args[0]'],
    ['an MCP env value', '/mcp-servers/', mcpServerBody({ env: { TOKEN: MARK } }), 'mcp_server.env.TOKEN'],
    [
      'an MCP header name',
      '/mcp-servers/',
      mcpServerBody({ headers: { [MARK]: 'v' } }),
      `mcp_server.headers["${MARK}"]`,
    ],
    [
      'a sessionKwargs key',
      '/mcp-servers/',
      mcpServerBody({ sessionKwargs: { a: { [MARK]: 1 } } }),
      `mcp_server.sessionKwargs.a["${MARK}"]`,
    ],
    ['an SSO audience', '/sso/', ssoBody({ audience: MARK }), 'sso.audience'],
    [
      'agent instructions',
      '/agents/',
      agentBody({}, { agent: { model: { provider: 'mock', name: 'echo' }, instructions: MARK } }),
      'agent.instructions',
    ],
    ['a workspace name', '/workspaces/', { name: MARK }, 'name'],
    [
      'a guardrail phrase',
      '/guardrails/',
      guardrailBody({ rules: [{ name: 'p', kind: 'pattern', phrases: [MARK], position: 'input', action: 'block' }] }),
      'guardrail.rules[0].phrases[0]',
    ],
    [
      'a guardrail rubric',
      '/guardrails/',
      guardrailBody({ rules: [{ name: 'j', kind: 'model_judge', rubric: MARK, position: 'input', action: 'block' }] }),
      'guardrail.rules[0].rubric',
    ],
  ];

  it.each(stored)('refuses a NUL in %s with 422 naming it', async (_what, path, body, field) => {
    const response = await owner.agent
      .post(`${API_PREFIX}${path}`)
      .set('Content-Type', 'application/json')
      .send(withEscape(body, MARK, 'x\\u0000y'));
    const named = field.replace(`"${MARK}"`, '"x\\u0000y"');
    expectFieldNamed(response, 422, named);
  });

  it.each(stored)('refuses a lone surrogate in %s with 422', async (_what, path, body) => {
    const response = await owner.agent
      .post(`${API_PREFIX}${path}`)
      .set('Content-Type', 'application/json')
      .send(withEscape(body, MARK, '\\ud800'));
    expectProblemShape(response, 422);
  });

  it.each(['/auth/login', '/auth/signup'])('refuses a NUL in the email of %s, without a session', async (path) => {
    const response = await request(ctx.app)
      .post(`${API_PREFIX}${path}`)
      .set('Content-Type', 'application/json')
      .send('{"email":"ada\\u0000@example.com","password":"correct horse battery"}');
    expectFieldNamed(response, 422, 'email');
  });
});

describe('shapes validation would lose or choke on', () => {
  it.each(['headers', 'env'])('refuses "__proto__" as an MCP %s name instead of dropping it', async (map) => {
    const response = await owner.agent
      .post(`${API_PREFIX}/mcp-servers/`)
      .set('Content-Type', 'application/json')
      .send(withEscape(mcpServerBody({ [map]: { [MARK]: 'v' } }), MARK, '__proto__'));
    expectFieldNamed(response, 422, `mcp_server.${map}.__proto__`);
  });

  it.each([10_000, 1_000])('refuses sessionKwargs nested %i deep with 422', async (depth) => {
    const nested = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const response = await owner.agent
      .post(`${API_PREFIX}/mcp-servers/`)
      .set('Content-Type', 'application/json')
      .send(withEscape(mcpServerBody({ sessionKwargs: MARK }), `"${MARK}"`, nested));
    expectProblemShape(response, 422);
    expect(response.body.errors[0].path).toMatch(/^mcp_server\.sessionKwargs\.a\.a/);
  });

  it('refuses an MCP url that hides a bidirectional override', async () => {
    const response = await owner.agent
      .post(`${API_PREFIX}/mcp-servers/`)
      .send(mcpServerBody({ url: 'https://mcp.example.com/\u202Egpj.exe' }));
    expectFieldNamed(response, 422, 'mcp_server.url');
  });

  it('answers 422 naming a field over its cap, and 413 to a body over the byte limit', async () => {
    const args = Array.from({ length: MCP_ARGS_MAX_ITEMS + 1 }, () => 'a');
    const tooMany = await owner.agent
      .post(`${API_PREFIX}/mcp-servers/`)
      .send(mcpServerBody({ transport: 'stdio', command: '/usr/bin/node', args }));
    expectFieldNamed(tooMany, 422, 'mcp_server.args');
    const huge = await owner.agent.post(`${API_PREFIX}/workspaces/`).send({ name: 'x'.repeat(JSON_BODY_MAX_BYTES) });
    expectProblemShape(huge, 413);
  });
});

describe('malformed path ids', () => {
  const routesWithIds = () => ctx.app.apiRoutes.filter((route) => route.params !== undefined);

  it.each(['%C0%AF', '%ZZ', '%FF%FE'])('answer 400 on every route with an id, signed in or not: %s', async (id) => {
    expect(routesWithIds().length).toBeGreaterThan(10);
    for (const route of routesWithIds()) {
      const path = route.path.replace(/\{[^}]+\}/g, id);
      for (const client of [owner.agent, request(ctx.app)]) {
        const response = await client[route.method](path);
        if (response.status !== 400) throw new Error(`${route.method} ${path}: ${response.status} ${response.text}`);
        expectProblemShape(response, 400);
      }
    }
  });
});

describe('upper-case UUIDs', () => {
  it('name the same agent on every verb', async () => {
    const created = await owner.agent.post(`${API_PREFIX}/agents/`).send(agentBody());
    const upper = `${API_PREFIX}/agents/${created.body.id.toUpperCase()}`;
    expect((await owner.agent.get(upper)).body.id).toBe(created.body.id);
    const patched = await owner.agent.patch(upper).send(agentBody({}, { name: 'renamed' }));
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: created.body.id, name: 'renamed', engine_config_version: 2 });
    expect((await owner.agent.post(`${upper}/token`)).status).toBe(201);
    expect((await owner.agent.delete(upper)).status).toBe(204);
    expectProblemShape(await owner.agent.get(upper), 404);
  });

  it('name the same resource on every verb, and in references', async () => {
    const created = await owner.agent.post(`${API_PREFIX}/integrations/`).send(whatsappBody());
    const upperId = created.body.id.toUpperCase();
    const upper = `${API_PREFIX}/integrations/${upperId}`;
    expect((await owner.agent.get(upper)).body.id).toBe(created.body.id);
    expect((await owner.agent.patch(upper).send(whatsappBody())).status).toBe(200);
    const agent = await owner.agent.post(`${API_PREFIX}/agents/`).send(agentBody({ integration_ids: [upperId] }));
    expect(agent.status).toBe(201);
    expect(agent.body.resources.integration_ids).toEqual([created.body.id]);
    expectProblemShape(await owner.agent.delete(upper), 409);
    expect((await owner.agent.delete(`${API_PREFIX}/agents/${agent.body.id}`)).status).toBe(204);
    expect((await owner.agent.delete(upper)).status).toBe(204);
  });

  it('name the same workspace in a path and in x-workspace-id', async () => {
    const user = await signUpUser(ctx.app);
    const upper = user.workspaceId.toUpperCase();
    expect((await user.agent.get(`${API_PREFIX}/workspaces/${upper}`)).body.id).toBe(user.workspaceId);
    expect((await user.agent.patch(`${API_PREFIX}/workspaces/${upper}`).send({ name: 'renamed' })).status).toBe(200);
    expect((await user.agent.get(`${API_PREFIX}/workspaces/${upper}/members/`)).status).toBe(200);
    const listed = await user.agent.get(`${API_PREFIX}/agents/`).set('x-workspace-id', upper);
    expect(listed.status).toBe(200);
  });
});
