import { ConfigError } from '@agentplane/server-kit';
import { describe, expect, it } from '@jest/globals';
import { loadManagerConfig } from './config.js';

const base = { DATABASE_URL: 'postgresql://localhost/agentplane', SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') };

describe('loadManagerConfig', () => {
  it('serves no metrics unless METRICS_PORT is set, and then on loopback unless METRICS_HOST says otherwise', () => {
    expect(loadManagerConfig(base).metrics).toBeUndefined();
    expect(loadManagerConfig({ ...base, METRICS_PORT: '9464' }).metrics).toEqual({ port: 9464, host: '127.0.0.1' });
    expect(loadManagerConfig({ ...base, METRICS_PORT: '9464', METRICS_HOST: '10.0.0.5' }).metrics).toEqual({
      port: 9464,
      host: '10.0.0.5',
    });
    expect(() => loadManagerConfig({ ...base, METRICS_PORT: '-1' })).toThrow(/METRICS_PORT/);
  });

  it("mints agent tokens for 15 minutes unless told otherwise: one outlives its minter's removal until it expires", () => {
    expect(loadManagerConfig(base).agentTokenTtlSeconds).toBe(900);
  });

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
    expect(loadManagerConfig(base).engines).toEqual({
      databaseUrl: base.DATABASE_URL,
      roles: { connectionLimit: 20, statementTimeoutMs: 60_000, idleInTransactionTimeoutMs: 60_000 },
      connectionsTotal: undefined,
      watchdog: { intervalMs: 5000, blockingGraceMs: 10_000 },
      pools: {
        urls: new Map(),
        defaultDeployment: { mode: 'dedicated' },
        roles: { connectionLimit: 24, statementTimeoutMs: 60_000, idleInTransactionTimeoutMs: 60_000 },
      },
    });
    const config = loadManagerConfig({
      ...base,
      ENGINE_DATABASE_URL: 'postgresql://db.internal:5432/agentplane?sslmode=require',
      ENGINE_DB_CONNECTION_LIMIT: '8',
      ENGINE_DB_STATEMENT_TIMEOUT_MS: '5000',
      ENGINE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '2000',
      ENGINE_DB_WATCHDOG_MS: '1000',
      ENGINE_DB_BLOCKING_GRACE_MS: '3000',
    });
    expect(config.engines).toEqual({
      databaseUrl: 'postgresql://db.internal:5432/agentplane?sslmode=require',
      roles: { connectionLimit: 8, statementTimeoutMs: 5000, idleInTransactionTimeoutMs: 2000 },
      connectionsTotal: undefined,
      watchdog: { intervalMs: 1000, blockingGraceMs: 3000 },
      pools: {
        urls: new Map(),
        defaultDeployment: { mode: 'dedicated' },
        roles: { connectionLimit: 24, statementTimeoutMs: 5000, idleInTransactionTimeoutMs: 2000 },
      },
    });
    expect(() => loadManagerConfig({ ...base, ENGINE_DATABASE_URL: 'mysql://db/x' })).toThrow(/ENGINE_DATABASE_URL/);
    for (const limit of ['0', '-1', 'many', '10001']) {
      expect(() => loadManagerConfig({ ...base, ENGINE_DB_CONNECTION_LIMIT: limit })).toThrow(
        /ENGINE_DB_CONNECTION_LIMIT/,
      );
    }
  });

  it('reads the engine pools and the default placement, dedicated without DEFAULT_ENGINE_POOL', () => {
    const config = loadManagerConfig({
      ...base,
      ENGINE_POOLS: ' main=https://engines.example.com/ , eu_2=http://10.0.0.7:8001/pools/eu ',
      DEFAULT_ENGINE_POOL: 'eu_2',
      ENGINE_POOL_DB_CONNECTION_LIMIT: '40',
    });
    expect(config.engines.pools).toEqual({
      urls: new Map([
        ['main', 'https://engines.example.com'],
        ['eu_2', 'http://10.0.0.7:8001/pools/eu'],
      ]),
      defaultDeployment: { mode: 'pool', pool: 'eu_2' },
      roles: { connectionLimit: 40, statementTimeoutMs: 60_000, idleInTransactionTimeoutMs: 60_000 },
    });
    // The console's playground may stream from the pools, besides the engines CONSOLE_ENGINE_SOURCES lists.
    expect(config.console.engineSources).toEqual(['https://engines.example.com', 'http://10.0.0.7:8001']);
    const withSources = loadManagerConfig({
      ...base,
      ENGINE_POOLS: 'main=https://engines.example.com/main',
      CONSOLE_ENGINE_SOURCES: 'https://engines.example.com,http://localhost:*',
    });
    expect(withSources.console.engineSources).toEqual(['https://engines.example.com', 'http://localhost:*']);
    const withoutDefault = loadManagerConfig({ ...base, ENGINE_POOLS: 'main=https://engines.example.com' });
    expect(withoutDefault.engines.pools.defaultDeployment).toEqual({ mode: 'dedicated' });
  });

  it.each([
    ['a name that is no pool name', { ENGINE_POOLS: 'Main=https://engines.example.com' }, /ENGINE_POOLS: .*"Main=/],
    ['an entry without a URL', { ENGINE_POOLS: 'main' }, /ENGINE_POOLS: .*"main"/],
    [
      'a name given twice',
      { ENGINE_POOLS: 'a=http://x.test,a=http://y.test' },
      /ENGINE_POOLS: names the pool "a" twice/,
    ],
    ['a URL with credentials', { ENGINE_POOLS: 'a=https://u:p@x.test' }, /ENGINE_POOLS: pool "a": its URL/],
    ['a URL with a query', { ENGINE_POOLS: 'a=https://x.test/?k=v' }, /ENGINE_POOLS: pool "a": its URL/],
    ['a URL with a fragment', { ENGINE_POOLS: 'a=https://x.test/#f' }, /ENGINE_POOLS: pool "a": its URL/],
    ['a URL that is not http(s)', { ENGINE_POOLS: 'a=ftp://x.test' }, /ENGINE_POOLS: pool "a": its URL/],
    [
      'a default that is not a pool',
      { ENGINE_POOLS: 'a=http://x.test', DEFAULT_ENGINE_POOL: 'b' },
      /DEFAULT_ENGINE_POOL: must name one of ENGINE_POOLS \(a\)/,
    ],
    [
      'a default without pools',
      { DEFAULT_ENGINE_POOL: 'main' },
      /DEFAULT_ENGINE_POOL: must name one of ENGINE_POOLS \(none set\)/,
    ],
    ['a pool connection limit of 0', { ENGINE_POOL_DB_CONNECTION_LIMIT: '0' }, /ENGINE_POOL_DB_CONNECTION_LIMIT/],
  ])('stops at start with %s', (_what, env, message) => {
    expect(() => loadManagerConfig({ ...base, ...env })).toThrow(ConfigError);
    expect(() => loadManagerConfig({ ...base, ...env })).toThrow(message);
  });

  it('caps agents at 1,000 per workspace unless MAX_AGENTS_PER_WORKSPACE says otherwise', () => {
    expect(loadManagerConfig(base).maxAgentsPerWorkspace).toBe(1000);
    expect(loadManagerConfig({ ...base, MAX_AGENTS_PER_WORKSPACE: '100000' }).maxAgentsPerWorkspace).toBe(100_000);
    for (const max of ['0', 'many', '1.5']) {
      expect(() => loadManagerConfig({ ...base, MAX_AGENTS_PER_WORKSPACE: max })).toThrow(/MAX_AGENTS_PER_WORKSPACE/);
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

  it('names the session cookie __Host-sid when it is Secure, sid otherwise', () => {
    expect(loadManagerConfig(base).session).toMatchObject({ cookieName: 'sid', secureCookie: false, sameSite: 'lax' });
    expect(loadManagerConfig({ ...base, COOKIE_SECURE: 'true' }).session.cookieName).toBe('__Host-sid');
    expect(
      loadManagerConfig({ ...base, NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(32) }).session.cookieName,
    ).toBe('__Host-sid');
  });

  it('refuses SESSION_COOKIE_SAME_SITE=none unless the cookie is Secure, naming the variable', () => {
    expect(() => loadManagerConfig({ ...base, SESSION_COOKIE_SAME_SITE: 'none' })).toThrow(
      /SESSION_COOKIE_SAME_SITE: none needs a Secure cookie/,
    );
    expect(() => loadManagerConfig({ ...base, SESSION_COOKIE_SAME_SITE: 'none', COOKIE_SECURE: 'false' })).toThrow(
      /SESSION_COOKIE_SAME_SITE/,
    );
    expect(
      loadManagerConfig({ ...base, SESSION_COOKIE_SAME_SITE: 'none', COOKIE_SECURE: 'true' }).session.sameSite,
    ).toBe('none');
    expect(loadManagerConfig({ ...base, SESSION_COOKIE_SAME_SITE: 'strict' }).session.sameSite).toBe('strict');
    expect(() => loadManagerConfig({ ...base, SESSION_COOKIE_SAME_SITE: 'Lax' })).toThrow(/SESSION_COOKIE_SAME_SITE/);
  });

  it('reads the sign-in backoff and refuses the per-email limit it replaced', () => {
    expect(loadManagerConfig(base).authRateLimit).toEqual({
      windowMs: 900_000,
      perIp: 30,
      failuresBeforeBackoff: 5,
      backoffBaseMs: 60_000,
      backoffMaxMs: 3_600_000,
    });
    expect(() => loadManagerConfig({ ...base, AUTH_RATE_LIMIT_PER_EMAIL: '5' })).toThrow(
      /AUTH_RATE_LIMIT_PER_EMAIL: was replaced/,
    );
    expect(() => loadManagerConfig({ ...base, AUTH_BACKOFF_BASE_MS: '2000', AUTH_BACKOFF_MAX_MS: '1000' })).toThrow(
      /AUTH_BACKOFF_MAX_MS/,
    );
  });

  it('bounds INVITATION_TTL_SECONDS, 7 days by default', () => {
    expect(loadManagerConfig(base).invitationTtlSeconds).toBe(604_800);
    expect(loadManagerConfig({ ...base, INVITATION_TTL_SECONDS: '3600' }).invitationTtlSeconds).toBe(3600);
    for (const ttl of ['59', '7776001', 'soon']) {
      expect(() => loadManagerConfig({ ...base, INVITATION_TTL_SECONDS: ttl })).toThrow(/INVITATION_TTL_SECONDS/);
    }
  });

  it('names a bad CORS origin', () => {
    expect(() => loadManagerConfig({ ...base, CORS_ORIGINS: 'not a url' })).toThrow(/CORS_ORIGINS/);
  });
});
