// What a user of `pnpm start` sees of the manager's publishing: nothing on stderr. Prisma runs the
// relation queries of an include side by side, and inside a transaction pg then queues them on one
// connection with a DeprecationWarning (pg 9 will refuse them); the warning is printed once per
// process, so one manager process goes through every publishing path before its stderr is read.
import { randomBytes, randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { ManagerClient } from '@agentplane/manager-client';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { whatsappIntegration } from './testing/integration-bodies.js';
import { ServiceProcesses } from './testing/service-processes.js';

let database: TestDatabase;
const services = new ServiceProcesses();
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await services.stopAll();
  await database?.drop();
});

it('creates, republishes and lists agents without printing a warning', async () => {
  const managerUrl = await services.start(
    'manager',
    {
      DATABASE_URL: database.url,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      SESSION_SECRET: randomBytes(32).toString('base64'),
      // jest's own NODE_OPTIONS hold --no-warnings=ExperimentalWarning, which silences every warning.
      NODE_OPTIONS: '',
    },
    { captureStderr: true },
  );
  const api = new ManagerClient(managerUrl);
  await api.expect(201, 'POST', '/auth/signup', {
    email: `quiet-${randomUUID()}@example.test`,
    password: 'quiet password!',
  });
  const integration = await api.expect<{ id: string }>(
    201,
    'POST',
    '/integrations/',
    whatsappIntegration('1065550001'),
  );
  const mcp = await api.expect<{ id: string }>(201, 'POST', '/mcp-servers/', {
    name: 'tools',
    mcp_server: { name: 'tools', url: 'https://mcp.example.com/mcp' },
  });
  const sso = await api.expect<{ id: string }>(201, 'POST', '/sso/', {
    name: 'login',
    sso: { enabled: true, issuer: 'https://login.example.com/realms/acme', audience: 'agents' },
  });
  // Every relation an agent has, so that each include has several to load.
  const body = {
    name: 'quiet agent',
    framework: 'LLM',
    agent: { model: { provider: 'mock', name: 'echo' } },
    resources: { integration_ids: [integration.id], mcp_server_ids: [mcp.id], sso_id: sso.id },
  };
  const agents = [];
  for (let i = 0; i < 3; i++) agents.push(await api.expect<{ id: string }>(201, 'POST', '/agents/', body));
  await api.expect(200, 'PATCH', `/agents/${agents[0]?.id}`, { ...body, name: 'renamed' });
  await api.expect(200, 'PATCH', `/integrations/${integration.id}`, whatsappIntegration('1065550002'));
  await api.expect(200, 'GET', '/agents/?include=engine_config');

  await services.kill(managerUrl, 'SIGTERM');
  expect(services.stderrOf(managerUrl)).not.toMatch(/warning/i);
});
