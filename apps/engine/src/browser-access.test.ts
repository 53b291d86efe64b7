import { describe, expect, it } from '@jest/globals';
import { makeLlmEngineConfig } from './testing/engine-configs.js';
import { startFileEngine } from './testing/test-engine.js';

const FRONTEND = 'https://app.example.com';

describe('browser access to the agent endpoints', () => {
  it('grants CORS to ENGINE_CORS_ORIGINS only, for bearer calls without cookies', async () => {
    const engine = await startFileEngine(makeLlmEngineConfig(), { env: { ENGINE_CORS_ORIGINS: `${FRONTEND}/` } });
    try {
      const preflight = await fetch(`${engine.url}/agent/run`, {
        method: 'OPTIONS',
        headers: {
          Origin: FRONTEND,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization,content-type',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(FRONTEND);
      expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
      expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();

      const read = await fetch(`${engine.url}/agent/capabilities`, { headers: { Origin: FRONTEND } });
      expect(read.headers.get('access-control-allow-origin')).toBe(FRONTEND);
      const foreign = await fetch(`${engine.url}/agent/capabilities`, { headers: { Origin: 'https://evil.example' } });
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await engine.shutdown();
    }
  });

  it("lets a browser A2A client send its protocol version to the agent's JSON-RPC endpoint", async () => {
    const engine = await startFileEngine(makeLlmEngineConfig(), { env: { ENGINE_CORS_ORIGINS: FRONTEND } });
    try {
      const preflight = await fetch(`${engine.url}/a2a`, {
        method: 'OPTIONS',
        headers: {
          Origin: FRONTEND,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization,content-type,a2a-version',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-headers')).toMatch(/A2A-Version/);
    } finally {
      await engine.shutdown();
    }
  });

  it('lets the browser read WWW-Authenticate on a refused token, to tell "refresh it" from "not allowed"', async () => {
    const engine = await startFileEngine(makeLlmEngineConfig(), {
      env: {
        ENGINE_CORS_ORIGINS: FRONTEND,
        ENGINE_AUTH: 'oidc',
        ENGINE_OIDC_ISSUER: 'https://login.example.com',
        ENGINE_OIDC_AUDIENCE: 'agents',
      },
    });
    try {
      const refused = await fetch(`${engine.url}/agent/config`, { headers: { Origin: FRONTEND } });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('access-control-allow-origin')).toBe(FRONTEND);
      const exposed = refused.headers.get('access-control-expose-headers');
      for (const header of ['WWW-Authenticate', 'X-Total-Count', 'X-Next-Cursor']) {
        expect(exposed).toMatch(new RegExp(`(^|,\\s*)${header}(,|$)`, 'i'));
      }
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    } finally {
      await engine.shutdown();
    }
  });

  it('grants nothing when no origin is configured', async () => {
    const engine = await startFileEngine(makeLlmEngineConfig());
    try {
      const response = await fetch(`${engine.url}/agent/capabilities`, { headers: { Origin: FRONTEND } });
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await engine.shutdown();
    }
  });
});
