// GET /api/v1/agents/{id}/card: the agent's A2A card from what the manager stores, without calling its
// engine: its JSON-RPC endpoint below its engine_url (a pooled agent's derived from its pool), its config
// version, its description and the issuers its engine accepts; to the workspace's viewers, nobody else.
import { randomUUID } from 'node:crypto';
import { ZAgentCard } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  addToWorkspace,
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
  uniquePoolName,
} from '../testing/manager-test-app.js';
import { agentBody, createThroughApi, ssoBody } from '../testing/resource-fixtures.js';

const POOL = uniquePoolName('card');
const POOL_URL = 'https://pools.example.com/main';
const ENGINE_URL = 'https://support.engines.example.com';
const SSO_ISSUER = 'https://login.example.com/realms/acme';

let ctx: ManagerTestContext;
let owner: SignedInUser;
beforeAll(async () => {
  ctx = await startManagerTestApp({ ENGINE_POOLS: `${POOL}=${POOL_URL}` });
  owner = await signUpUser(ctx.app);
});
afterAll(() => ctx?.close());

async function createAgent(overrides: Record<string, unknown>, resources: Record<string, unknown> = {}) {
  const response = await owner.agent.post('/api/v1/agents/').send(agentBody(resources, overrides));
  expect(response.status).toBe(201);
  return response.body as { id: string; name: string; engine_config_version: number };
}

const cardOf = (user: SignedInUser, id: string) => user.agent.get(`/api/v1/agents/${id}/card`);

describe('GET /api/v1/agents/{id}/card', () => {
  it("builds a dedicated agent's card from its engine_url, config version, description and issuers", async () => {
    const ssoId = await createThroughApi(owner, '/api/v1/sso/', ssoBody({ issuer: SSO_ISSUER }));
    const agent = await createAgent({ description: 'Answers customers', engine_url: ENGINE_URL }, { sso_id: ssoId });
    const response = await cardOf(owner, agent.id);
    expect(response.status).toBe(200);
    const card = ZAgentCard.parse(response.body);
    expect(card).toMatchObject({
      name: agent.name,
      description: 'Answers customers',
      version: String(agent.engine_config_version),
      supportedInterfaces: [{ url: `${ENGINE_URL}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true },
    });
    const oidcUrls = Object.values(card.securitySchemes).flatMap((scheme) =>
      'openIdConnectSecurityScheme' in scheme ? [scheme.openIdConnectSecurityScheme.openIdConnectUrl] : [],
    );
    expect(oidcUrls).toEqual([
      `${ctx.config.issuer}/.well-known/openid-configuration`,
      `${SSO_ISSUER}/.well-known/openid-configuration`,
    ]);
  });

  it('follows the published config: a PATCH that republishes it moves the version', async () => {
    const agent = await createAgent({ engine_url: ENGINE_URL });
    const patched = await owner.agent.patch(`/api/v1/agents/${agent.id}`).send(
      agentBody(
        {},
        {
          name: agent.name,
          engine_url: ENGINE_URL,
          agent: { model: { provider: 'mock', name: 'echo' }, maxSteps: 3 },
        },
      ),
    );
    expect(patched.body.engine_config_version).toBe(2);
    expect((await cardOf(owner, agent.id)).body.version).toBe('2');
  });

  it("names a pooled agent's endpoint below its pool's URL", async () => {
    const agent = await createAgent({ deployment: { mode: 'pool', pool: POOL } });
    const card = ZAgentCard.parse((await cardOf(owner, agent.id)).body);
    expect(card.supportedInterfaces[0]?.url).toBe(`${POOL_URL}/agents/${agent.id}/a2a`);
    expect(card.description).toBe(`The Agentplane agent "${agent.name}".`);
  });

  it('answers 409 for an agent without an engine_url: its card would name no endpoint', async () => {
    const agent = await createAgent({});
    const response = await cardOf(owner, agent.id);
    expectProblemShape(response, 409);
    expect(response.body.type).toBe('urn:agentplane:problem:no-engine-url');
  });

  it("is a viewer's to read, and nobody's outside the workspace (404), nor without a session (401)", async () => {
    const agent = await createAgent({ engine_url: ENGINE_URL });
    const viewer = await signUpUser(ctx.app);
    await addToWorkspace(owner, viewer, 'viewer');
    expect((await cardOf(viewer, agent.id).set('x-workspace-id', owner.workspaceId)).status).toBe(200);
    const stranger = await signUpUser(ctx.app);
    expectProblemShape(await cardOf(stranger, agent.id), 404);
    expectProblemShape(await cardOf(stranger, agent.id).set('x-workspace-id', owner.workspaceId), 403);
    expectProblemShape(await request(ctx.app).get(`/api/v1/agents/${agent.id}/card`), 401);
  });

  it('answers 404 for an unknown id, and a 4xx for ids no agent can have', async () => {
    expectProblemShape(await cardOf(owner, randomUUID()), 404);
    for (const id of ['not-a-uuid', '%00', '%ED%A0%80', 'x'.repeat(10_000)]) {
      const response = await cardOf(owner, id);
      expect({ id: id.slice(0, 20), status: response.status >= 400 && response.status < 500 }).toEqual({
        id: id.slice(0, 20),
        status: true,
      });
    }
  });

  it('is in the OpenAPI document', async () => {
    const document = await owner.agent.get('/api/v1/openapi.json');
    expect(document.body.paths['/api/v1/agents/{id}/card']?.get?.operationId).toBe('getAgentCard');
  });
});
