// Small row factories for tests: each makes a valid row with overridable fields.
import { randomUUID } from 'node:crypto';
import type { Db } from '../client.js';

const unique = () => randomUUID().slice(0, 8);

export function makeWorkspace(db: Db, overrides: { name?: string } = {}) {
  return db.workspace.create({ data: { name: `workspace-${unique()}`, ...overrides } });
}

export function makeUser(db: Db, overrides: { email?: string; name?: string | null } = {}) {
  return db.user.create({
    data: { email: `user-${unique()}@example.test`, passwordHash: 'not-a-real-hash', ...overrides },
  });
}

export function makeIntegration(db: Db, workspaceId: string) {
  return db.integration.create({
    data: {
      workspaceId,
      name: `integration-${unique()}`,
      provider: 'WHATSAPP',
      config: { phoneNumberId: '123', apiVersion: 'v21.0' },
    },
  });
}

export function makeMcpServer(db: Db, workspaceId: string) {
  return db.mcpServer.create({
    data: { workspaceId, name: `mcp-${unique()}`, config: { transport: 'stdio', command: 'true' } },
  });
}

export function makeSsoConfig(db: Db, workspaceId: string) {
  return db.ssoConfig.create({
    data: {
      workspaceId,
      name: `sso-${unique()}`,
      config: { issuer: 'https://issuer.example.test', audience: 'agents' },
    },
  });
}

export function makeObservabilityConfig(db: Db, workspaceId: string) {
  return db.observabilityConfig.create({
    data: {
      workspaceId,
      name: `observability-${unique()}`,
      config: { provider: 'OTLP', endpoint: 'https://otel.example.test/v1/traces' },
    },
  });
}

export function makeAgent(
  db: Db,
  workspaceId: string,
  overrides: { ssoId?: string | null; observabilityId?: string | null } = {},
) {
  return db.agent.create({
    data: {
      workspaceId,
      name: `agent-${unique()}`,
      framework: 'LLM',
      config: { model: { provider: 'mock', name: 'echo' } },
      ...overrides,
    },
  });
}
