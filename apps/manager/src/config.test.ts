import { ConfigError } from '@agentplane/server-kit';
import { describe, expect, it } from '@jest/globals';
import { loadManagerConfig } from './config.js';

const base = { DATABASE_URL: 'postgresql://localhost/agentplane', SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') };

describe('loadManagerConfig', () => {
  it('refuses to start in production without SESSION_SECRET', () => {
    expect(() => loadManagerConfig({ ...base, NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadManagerConfig({ ...base, NODE_ENV: 'production' })).toThrow(/SESSION_SECRET/);
  });

  it('makes a random secret in development and says so', () => {
    const config = loadManagerConfig(base);
    expect(config.session.secretIsEphemeral).toBe(true);
    expect(config.session.secrets[0]).toHaveLength(43);
    expect(loadManagerConfig(base).session.secrets[0]).not.toBe(config.session.secrets[0]);
  });

  it('keeps previous secrets for verifying cookies after a rotation', () => {
    const config = loadManagerConfig({
      ...base,
      SESSION_SECRET: 'n'.repeat(32),
      SESSION_SECRET_PREVIOUS: 'o'.repeat(32),
    });
    expect(config.session.secrets).toEqual(['n'.repeat(32), 'o'.repeat(32)]);
  });

  it('secures cookies in production and reads the proxy and origin settings', () => {
    const config = loadManagerConfig({
      ...base,
      NODE_ENV: 'production',
      SESSION_SECRET: 's'.repeat(32),
      TRUST_PROXY: '1',
      CORS_ORIGINS: 'https://app.example.com/, https://admin.example.com',
      PUBLIC_URL: 'https://api.example.com/base',
    });
    expect(config.session.secureCookie).toBe(true);
    expect(config.trustProxy).toBe(1);
    expect(config.corsOrigins).toEqual(['https://app.example.com', 'https://admin.example.com']);
    expect(config.publicOrigin).toBe('https://api.example.com');
  });

  it('builds engine credentials on DATABASE_URL unless ENGINE_DATABASE_URL names another address, and bounds the connection limit', () => {
    expect(loadManagerConfig(base).engines).toEqual({ databaseUrl: base.DATABASE_URL, connectionLimit: 20 });
    const config = loadManagerConfig({
      ...base,
      ENGINE_DATABASE_URL: 'postgresql://db.internal:5432/agentplane?sslmode=require',
      ENGINE_DB_CONNECTION_LIMIT: '8',
    });
    expect(config.engines).toEqual({
      databaseUrl: 'postgresql://db.internal:5432/agentplane?sslmode=require',
      connectionLimit: 8,
    });
    expect(() => loadManagerConfig({ ...base, ENGINE_DATABASE_URL: 'mysql://db/x' })).toThrow(/ENGINE_DATABASE_URL/);
    for (const limit of ['0', '-1', 'many', '10001']) {
      expect(() => loadManagerConfig({ ...base, ENGINE_DB_CONNECTION_LIMIT: limit })).toThrow(
        /ENGINE_DB_CONNECTION_LIMIT/,
      );
    }
  });

  it('requires SECRETS_KEY', () => {
    expect(() => loadManagerConfig({ DATABASE_URL: base.DATABASE_URL })).toThrow(/SECRETS_KEY/);
    expect(() => loadManagerConfig({ ...base, SECRETS_KEY: 'short' })).toThrow(/SECRETS_KEY: must be 32 random bytes/);
  });

  it('prepares statements unless told not to', () => {
    expect(loadManagerConfig(base).preparedStatements).toBe(true);
    expect(loadManagerConfig({ ...base, DATABASE_PREPARED_STATEMENTS: 'false' }).preparedStatements).toBe(false);
    expect(() => loadManagerConfig({ ...base, DATABASE_PREPARED_STATEMENTS: 'off' })).toThrow(
      /DATABASE_PREPARED_STATEMENTS/,
    );
  });

  it('names a bad CORS origin', () => {
    expect(() => loadManagerConfig({ ...base, CORS_ORIGINS: 'not a url' })).toThrow(/CORS_ORIGINS/);
  });
});
