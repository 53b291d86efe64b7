import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { type ManagerIssuer, startManagerIssuer } from '../testing/manager-issuer.js';
import { startFileEngine } from '../testing/test-engine.js';

let manager: ManagerIssuer;
let issuer: string;

beforeAll(async () => {
  manager = await startManagerIssuer();
  issuer = manager.issuer;
});

afterAll(async () => {
  await manager?.close();
});

const mint = (claims: Parameters<ManagerIssuer['mint']>[0]) => manager.mint(claims);

describe('tokens the manager mints', () => {
  it('are accepted for this agent, next to the agent SSO config, and refused for another agent or issuer', async () => {
    const config = makeLlmEngineConfig({ sso: { issuer: 'https://login.example.com', audience: 'agents' } });
    const engine = await startFileEngine(config, { env: { ENGINE_AUTH: 'oidc', ENGINE_MANAGER_ISSUER: issuer } });
    const getConfig = async (token: string) =>
      fetch(`${engine.url}/agent/config`, { headers: { Authorization: `Bearer ${token}` } });
    try {
      expect((await getConfig(await mint({ aud: config.agent.id }))).status).toBe(200);
      const otherAgent = await getConfig(await mint({ aud: randomUUID() }));
      expect(otherAgent.status).toBe(401);
      expect(otherAgent.headers.get('www-authenticate')).toMatch(/invalid_token/);
      const otherIssuer = await getConfig(await mint({ aud: config.agent.id, iss: 'https://evil.example.com' }));
      expect(otherIssuer.status).toBe(401);
      expect(((await otherIssuer.json()) as { detail: string }).detail).toMatch(/"iss" claim is not accepted/);
    } finally {
      await engine.shutdown();
    }
  });

  it('are not trusted unless ENGINE_MANAGER_ISSUER names the manager', async () => {
    const config = makeLlmEngineConfig({ sso: { issuer: 'https://login.example.com', audience: 'agents' } });
    const engine = await startFileEngine(config, { env: { ENGINE_AUTH: 'oidc' } });
    try {
      const response = await fetch(`${engine.url}/agent/config`, {
        headers: { Authorization: `Bearer ${await mint({ aud: config.agent.id })}` },
      });
      expect(response.status).toBe(401);
    } finally {
      await engine.shutdown();
    }
  });
});
