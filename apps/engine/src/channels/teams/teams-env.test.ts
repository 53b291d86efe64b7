import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { loadEngineEnv } from '../../env.js';

const DATABASE = {
  AGENT_ID: randomUUID(),
  DATABASE_URL: 'postgresql://localhost/agentplane',
  AGENT_KEY: randomBytes(32).toString('base64'),
};

describe('the Teams settings of the engine', () => {
  it("default to Microsoft's endpoints and public-cloud connectors", () => {
    expect(loadEngineEnv(DATABASE).channels.teams).toEqual({
      openIdMetadataUrl: 'https://login.botframework.com/v1/.well-known/openidconfiguration',
      loginBaseUrl: 'https://login.microsoftonline.com',
      serviceUrlAllow: [
        { protocol: 'https:', host: 'smba.trafficmanager.net', port: '', anySubdomain: false },
        { protocol: 'https:', host: 'botframework.com', port: '', anySubdomain: true },
      ],
      timeoutMs: 10_000,
    });
  });

  it("take the operator's endpoints (a fake on loopback in tests) and refuse what is not an origin", () => {
    const teams = loadEngineEnv({
      ...DATABASE,
      TEAMS_OPENID_METADATA_URL: 'http://127.0.0.1:4100/v1/.well-known/openidconfiguration',
      TEAMS_LOGIN_BASE_URL: 'http://127.0.0.1:4100/',
      TEAMS_SERVICE_URL_ALLOW: 'http://127.0.0.1:4100, https://smba.infra.gcc.teams.microsoft.com',
    }).channels.teams;
    expect(teams.loginBaseUrl).toBe('http://127.0.0.1:4100');
    expect(teams.serviceUrlAllow.map((pattern) => pattern.host)).toEqual([
      '127.0.0.1',
      'smba.infra.gcc.teams.microsoft.com',
    ]);
    expect(() => loadEngineEnv({ ...DATABASE, TEAMS_SERVICE_URL_ALLOW: 'smba.trafficmanager.net' })).toThrow(
      /TEAMS_SERVICE_URL_ALLOW/,
    );
    expect(() => loadEngineEnv({ ...DATABASE, TEAMS_LOGIN_BASE_URL: 'ftp://x' })).toThrow(/TEAMS_LOGIN_BASE_URL/);
  });
});
