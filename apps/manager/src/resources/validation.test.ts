// Each contract rule, through the API: the body is refused with 422 and the path of the field at fault.
import { NO_USERINFO_RULE } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { mcpServerBody, observabilityBody, ssoBody, whatsappBody } from '../testing/resource-fixtures.js';

let ctx: ManagerTestContext;
let user: SignedInUser;
beforeAll(async () => {
  ctx = await startManagerTestApp();
  user = await signUpUser(ctx.app);
});
afterAll(() => ctx?.close());

async function expectRefused(path: string, body: unknown, fieldPath: string) {
  const created = await user.agent.post(path).send(body as object);
  expectProblemShape(created, 422);
  expect(created.body.errors.map((error: { path: string }) => error.path)).toContain(fieldPath);
}

const whatsappConfig = { accessToken: 'a', phoneNumberId: '1', verifyToken: 'v' };

describe('integration bodies', () => {
  it.each([
    ['a wrong provider', { provider: 'SIGNAL', config: whatsappConfig }, 'integration.provider'],
    [
      'no accessToken',
      { provider: 'WHATSAPP', config: { phoneNumberId: '1', verifyToken: 'v' } },
      'integration.config.accessToken',
    ],
    [
      'no phoneNumberId',
      { provider: 'WHATSAPP', config: { accessToken: 'a', verifyToken: 'v' } },
      'integration.config.phoneNumberId',
    ],
    [
      'no verifyToken',
      { provider: 'WHATSAPP', config: { accessToken: 'a', phoneNumberId: '1' } },
      'integration.config.verifyToken',
    ],
    [
      'an empty accessToken',
      { provider: 'WHATSAPP', config: { ...whatsappConfig, accessToken: '' } },
      'integration.config.accessToken',
    ],
    [
      'a bad apiVersion',
      { provider: 'WHATSAPP', config: { ...whatsappConfig, apiVersion: '21.0' } },
      'integration.config.apiVersion',
    ],
    [
      'an unknown config field',
      { provider: 'WHATSAPP', config: { ...whatsappConfig, pin: '1' } },
      'integration.config.pin',
    ],
    ['a non-boolean enabled', { provider: 'WHATSAPP', enabled: 'yes', config: whatsappConfig }, 'integration.enabled'],
  ])('refuses %s', async (_case, integration, fieldPath) => {
    await expectRefused('/api/v1/integrations/', { name: 'wa', integration }, fieldPath);
  });

  it('accepts the optional appSecret extension', async () => {
    const response = await user.agent
      .post('/api/v1/integrations/')
      .send(whatsappBody({ config: { ...whatsappConfig, appSecret: 's3' } }));
    expect(response.status).toBe(201);
    expect(response.body.integration.config.appSecret).toBe('s3');
  });
});

describe('MCP server bodies', () => {
  it.each([
    ['stdio without command', { name: 'x', transport: 'stdio' }, 'mcp_server.command'],
    ['streamable_http without url', { name: 'x', transport: 'streamable_http' }, 'mcp_server.url'],
    ['a url that is not a URL', { name: 'x', url: 'not a url' }, 'mcp_server.url'],
    ['an ftp url', { name: 'x', url: 'ftp://files.example.com' }, 'mcp_server.url'],
    [
      'websocket with an http url',
      { name: 'x', transport: 'websocket', url: 'http://x.example.com' },
      'mcp_server.url',
    ],
    [
      'a negative timeout',
      { name: 'x', url: 'https://x.example.com', timeoutSeconds: -1 },
      'mcp_server.timeoutSeconds',
    ],
    [
      'a zero read timeout',
      { name: 'x', url: 'https://x.example.com', sseReadTimeoutSeconds: 0 },
      'mcp_server.sseReadTimeoutSeconds',
    ],
    [
      'an unknown transport',
      { name: 'x', transport: 'carrier-pigeon', url: 'https://x.example.com' },
      'mcp_server.transport',
    ],
    ['an unknown field', { name: 'x', url: 'https://x.example.com', retries: 3 }, 'mcp_server.retries'],
    [
      'a non-string header',
      { name: 'x', url: 'https://x.example.com', headers: { 'X-A': 1 } },
      'mcp_server.headers["X-A"]',
    ],
  ])('refuses %s', async (_case, mcp_server, fieldPath) => {
    await expectRefused('/api/v1/mcp-servers/', { name: 'mcp', mcp_server }, fieldPath);
  });

  it('accepts a fractional timeout', async () => {
    const response = await user.agent.post('/api/v1/mcp-servers/').send(mcpServerBody({ timeoutSeconds: 0.5 }));
    expect(response.status).toBe(201);
    expect(response.body.mcp_server).toMatchObject({ transport: 'streamable_http', timeoutSeconds: 0.5 });
  });
  // stdio servers, which the operator must permit: operator-policy/operator-policy.test.ts.
});

describe('SSO bodies', () => {
  it.each([
    ['an http issuer that is not loopback', { issuer: 'http://login.example.com' }, 'sso.issuer'],
    ['a symmetric algorithm', { algorithms: ['HS256'] }, 'sso.algorithms[0]'],
    ['no audience', { audience: undefined }, 'sso.audience'],
    ['a user name and password in the issuer', { issuer: 'https://u:p@login.example.com/realms/acme' }, 'sso.issuer'],
    ['a user name in a loopback issuer', { issuer: 'http://admin@127.0.0.1:9000' }, 'sso.issuer'],
    ['a password in the jwksUri', { jwksUri: 'https://:secret@login.example.com/jwks' }, 'sso.jwksUri'],
  ])('refuses %s', async (_case, overrides, fieldPath) => {
    await expectRefused('/api/v1/sso/', ssoBody(overrides), fieldPath);
  });

  it('refuses a user name or password in a PATCH too, and keeps the stored config', async () => {
    const created = await user.agent.post('/api/v1/sso/').send(ssoBody());
    expect(created.status).toBe(201);
    const path = `/api/v1/sso/${created.body.id}`;
    const patched = await user.agent.patch(path).send(ssoBody({ jwksUri: 'https://u:p@login.example.com/jwks' }));
    expectProblemShape(patched, 422);
    expect(patched.body.errors).toEqual([{ path: 'sso.jwksUri', message: NO_USERINFO_RULE }]);
    expect((await user.agent.get(path)).body.sso).toEqual(created.body.sso);
  });
});

describe('observability bodies', () => {
  const langfuse = { provider: 'LANGFUSE', host: 'https://cloud.langfuse.com', public_key: 'pk-lf-1', secret_key: 's' };

  it.each([
    ['an unknown provider', { provider: 'DATADOG', endpoint: 'https://x.example.com' }, 'observability.provider'],
    ['no provider', { endpoint: 'https://x.example.com' }, 'observability.provider'],
    ['OTLP without endpoint', { provider: 'OTLP' }, 'observability.endpoint'],
    ['an ftp endpoint', { provider: 'OTLP', endpoint: 'ftp://otel.example.com' }, 'observability.endpoint'],
    [
      'a gRPC protocol',
      { provider: 'OTLP', endpoint: 'https://x.example.com', protocol: 'grpc' },
      'observability.protocol',
    ],
    [
      'a header name that is not an HTTP token',
      { provider: 'OTLP', endpoint: 'https://x.example.com', headers: { 'X Key': 'v' } },
      'observability.headers["X Key"]',
    ],
    [
      'a header value with a line break',
      { provider: 'OTLP', endpoint: 'https://x.example.com', headers: { 'X-Key': 'v\r\nX-Injected: 1' } },
      'observability.headers["X-Key"]',
    ],
    ['Langfuse without secret_key', { ...langfuse, secret_key: undefined }, 'observability.secret_key'],
    ['Langfuse without public_key', { ...langfuse, public_key: undefined }, 'observability.public_key'],
    [
      'Langfuse with an endpoint instead of a host',
      { ...langfuse, host: undefined, endpoint: 'https://x.example.com' },
      'observability.host',
    ],
    [
      'PHOENIX with an empty api_key',
      { provider: 'PHOENIX', endpoint: 'https://x.example.com', api_key: '' },
      'observability.api_key',
    ],
    ['a non-boolean capture_content', { ...langfuse, capture_content: 'yes' }, 'observability.capture_content'],
  ])('refuses %s', async (_case, observability, fieldPath) => {
    await expectRefused('/api/v1/observability/', { name: 'traces', observability }, fieldPath);
  });

  it('accepts each provider, with content capture off unless asked', async () => {
    const phoenix = { provider: 'PHOENIX', endpoint: 'https://app.phoenix.arize.com/v1/traces' };
    for (const observability of [observabilityBody().observability, langfuse, phoenix]) {
      const response = await user.agent.post('/api/v1/observability/').send({ name: 'traces', observability });
      expect(response.status).toBe(201);
      expect(response.body.observability).toMatchObject({ ...observability, capture_content: false });
    }
  });
});
