import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ScratchDirs } from '@agentplane/db/testing';
import { ConfigError } from '@agentplane/server-kit';
import { afterAll, describe, expect, it } from '@jest/globals';
import { loadEngineEnv } from './env.js';

const AGENT_ID = '6f1c1f7e-4a53-4d3a-9b55-2f8c2f0f4a10';
const AGENT_KEY = randomBytes(32).toString('base64');
const DATABASE = { AGENT_ID, DATABASE_URL: 'postgresql://localhost/agentplane', AGENT_KEY };
const scratch = new ScratchDirs();
afterAll(() => scratch.removeAll());

describe('loadEngineEnv', () => {
  it('reads database mode with the default port and poll interval', () => {
    const env = loadEngineEnv(DATABASE);
    expect(env.port).toBe(8001);
    expect(env.source).toEqual({
      kind: 'database',
      agentId: AGENT_ID,
      databaseUrl: DATABASE.DATABASE_URL,
      agentKey: AGENT_KEY,
      pollMs: 1000,
      listen: true,
    });
    expect(env.authDisabled).toBe(false);
  });

  it('can turn LISTEN off for poolers that cannot LISTEN, and trusts a manager issuer by its origin', () => {
    const env = loadEngineEnv({
      ...DATABASE,
      ENGINE_CONFIG_LISTEN: 'false',
      ENGINE_MANAGER_ISSUER: 'http://manager:8000/',
    });
    expect(env.source).toMatchObject({ kind: 'database', listen: false });
    expect(env.managerIssuer).toBe('http://manager:8000');
    expect(() => loadEngineEnv({ ...DATABASE, ENGINE_CONFIG_LISTEN: 'no' })).toThrow(/ENGINE_CONFIG_LISTEN/);
    expect(() => loadEngineEnv({ ...DATABASE, ENGINE_MANAGER_ISSUER: 'ftp://x' })).toThrow(/ENGINE_MANAGER_ISSUER/);
  });

  it('serves no metrics unless METRICS_PORT is set, and then on loopback unless METRICS_HOST says otherwise', () => {
    expect(loadEngineEnv(DATABASE).metrics).toBeUndefined();
    expect(loadEngineEnv({ ...DATABASE, METRICS_PORT: '', METRICS_HOST: '' }).metrics).toBeUndefined();
    expect(loadEngineEnv({ ...DATABASE, METRICS_PORT: '9464' }).metrics).toEqual({ port: 9464, host: '127.0.0.1' });
    expect(loadEngineEnv({ ...DATABASE, METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metrics).toEqual({
      port: 9464,
      host: '0.0.0.0',
    });
    expect(() => loadEngineEnv({ ...DATABASE, METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
  });

  it('reads file mode, which needs no database', () => {
    expect(loadEngineEnv({ ENGINE_CONFIG_FILE: 'agent.yaml' }).source).toEqual({ kind: 'file', path: 'agent.yaml' });
  });

  it('refuses to start with neither a database agent nor a config file, naming what is missing', () => {
    expect(() => loadEngineEnv({})).toThrow(ConfigError);
    expect(() => loadEngineEnv({})).toThrow(/AGENT_ID.*ENGINE_CONFIG_FILE/);
    expect(() => loadEngineEnv({ AGENT_ID })).toThrow(/DATABASE_URL/);
  });

  it('treats empty variables as unset, as compose passes them', () => {
    expect(loadEngineEnv({ AGENT_ID: '', ENGINE_CONFIG_FILE: 'agent.yaml', ENGINE_AUTH: '' }).source).toEqual({
      kind: 'file',
      path: 'agent.yaml',
    });
    expect(() => loadEngineEnv({ AGENT_ID: '', DATABASE_URL: DATABASE.DATABASE_URL })).toThrow(/AGENT_ID: required/);
  });

  it('refuses the platform SECRETS_KEY, and a database agent without its AGENT_KEY, saying where credentials come from', () => {
    for (const name of ['SECRETS_KEY', 'SECRETS_KEY_PREVIOUS']) {
      expect(() => loadEngineEnv({ ...DATABASE, [name]: AGENT_KEY })).toThrow(
        new RegExp(`${name}: .*POST /api/v1/agents/\\{id\\}/engine-credentials`),
      );
      expect(() => loadEngineEnv({ ENGINE_CONFIG_FILE: 'agent.yaml', [name]: AGENT_KEY })).toThrow(ConfigError);
    }
    const { AGENT_KEY: _omitted, ...withoutKey } = DATABASE;
    expect(() => loadEngineEnv(withoutKey)).toThrow(/AGENT_KEY: required .*engine-credentials/);
    expect(() => loadEngineEnv({ ...DATABASE, AGENT_KEY: 'short' })).toThrow(/AGENT_KEY/);
  });

  it('reads DATABASE_URL and AGENT_KEY from *_FILE paths, and refuses a variable set both ways', async () => {
    const dir = await scratch.make('engine-env-');
    const urlFile = path.join(dir, 'database_url');
    const keyFile = path.join(dir, 'agent_key');
    await writeFile(urlFile, `${DATABASE.DATABASE_URL}\n`);
    await writeFile(keyFile, `${AGENT_KEY}\n`);
    const env = loadEngineEnv({ AGENT_ID, DATABASE_URL_FILE: urlFile, AGENT_KEY_FILE: keyFile });
    expect(env.source).toMatchObject({ databaseUrl: DATABASE.DATABASE_URL, agentKey: AGENT_KEY });
    // A config naming a variable (an LLM's apiKeyEnv) can never be given the engine's own credentials.
    for (const name of ['DATABASE_URL', 'DATABASE_URL_FILE', 'AGENT_KEY', 'AGENT_KEY_FILE']) {
      expect(() => loadEngineEnv({ ...DATABASE, MODEL_API_KEY_ENVS: name })).toThrow(/MODEL_API_KEY_ENVS/);
    }
    expect(() => loadEngineEnv({ ...DATABASE, AGENT_KEY_FILE: keyFile })).toThrow(
      /AGENT_KEY_FILE: set it or AGENT_KEY/,
    );
    expect(() => loadEngineEnv({ AGENT_ID, AGENT_KEY, DATABASE_URL_FILE: path.join(dir, 'missing') })).toThrow(
      /DATABASE_URL_FILE: .* cannot be read \(ENOENT\)/,
    );
  });

  it('refuses both modes at once', () => {
    expect(() => loadEngineEnv({ ...DATABASE, ENGINE_CONFIG_FILE: 'agent.yaml' })).toThrow(/not both/);
  });

  it('rejects an AGENT_ID that is not a UUID, naming it', () => {
    expect(() => loadEngineEnv({ AGENT_ID: 'demo', DATABASE_URL: DATABASE.DATABASE_URL })).toThrow(/AGENT_ID/);
  });

  it('builds the OIDC fallback from ENGINE_OIDC_*, refusing HS* algorithms and half a setting', () => {
    const env = loadEngineEnv({
      ...DATABASE,
      ENGINE_OIDC_ISSUER: 'https://id.example.com',
      ENGINE_OIDC_AUDIENCE: 'agents',
      ENGINE_OIDC_ALGORITHMS: 'ES256, RS256',
    });
    expect(env.oidcFallback).toMatchObject({ issuer: 'https://id.example.com', algorithms: ['ES256', 'RS256'] });
    expect(() => loadEngineEnv({ ...DATABASE, ENGINE_OIDC_ISSUER: 'https://id.example.com' })).toThrow(
      /ENGINE_OIDC_AUDIENCE/,
    );
    expect(() =>
      loadEngineEnv({
        ...DATABASE,
        ENGINE_OIDC_ISSUER: 'https://id.example.com',
        ENGINE_OIDC_AUDIENCE: 'a',
        ENGINE_OIDC_ALGORITHMS: 'HS256',
      }),
    ).toThrow(/ENGINE_OIDC_ALGORITHMS/);
    expect(() =>
      loadEngineEnv({ ...DATABASE, ENGINE_OIDC_ISSUER: 'http://id.example.com', ENGINE_OIDC_AUDIENCE: 'a' }),
    ).toThrow(/ENGINE_OIDC_ISSUER/);
  });

  it('refuses a user name or password in ENGINE_OIDC_ISSUER or ENGINE_OIDC_JWKS_URI, naming it', () => {
    const oidc = { ...DATABASE, ENGINE_OIDC_ISSUER: 'https://id.example.com', ENGINE_OIDC_AUDIENCE: 'a' };
    expect(() => loadEngineEnv({ ...oidc, ENGINE_OIDC_ISSUER: 'https://u:p@id.example.com' })).toThrow(
      /ENGINE_OIDC_ISSUER.*user name or password/,
    );
    expect(() => loadEngineEnv({ ...oidc, ENGINE_OIDC_JWKS_URI: 'https://u@id.example.com/jwks' })).toThrow(
      /ENGINE_OIDC_JWKS_URI.*user name or password/,
    );
    expect(() => loadEngineEnv({ ...oidc, ENGINE_OIDC_ISSUER: 'https://id.example.com/?tenant=1' })).toThrow(
      /ENGINE_OIDC_ISSUER.*query/,
    );
  });

  it('allows runs without tokens only when ENGINE_AUTH=disabled is explicit', () => {
    expect(loadEngineEnv({ ...DATABASE, ENGINE_AUTH: 'disabled' }).authDisabled).toBe(true);
    expect(() => loadEngineEnv({ ...DATABASE, ENGINE_AUTH: 'off' })).toThrow(/ENGINE_AUTH/);
  });

  it("reads Slack's API base URL always ending in one slash, as the Web API client appends method names", () => {
    for (const given of ['http://127.0.0.1:9999/api', 'http://127.0.0.1:9999/api/', 'http://127.0.0.1:9999/api//']) {
      expect(loadEngineEnv({ ...DATABASE, SLACK_API_BASE_URL: given }).channels.slack.apiBaseUrl).toBe(
        'http://127.0.0.1:9999/api/',
      );
    }
    expect(() => loadEngineEnv({ ...DATABASE, SLACK_API_BASE_URL: 'ftp://slack.test/api' })).toThrow(
      /SLACK_API_BASE_URL/,
    );
    expect(() => loadEngineEnv({ ...DATABASE, SLACK_API_TIMEOUT_MS: '5' })).toThrow(/SLACK_API_TIMEOUT_MS/);
  });

  it('reads the channel settings with their defaults, and refuses a Graph base URL that is not http(s)', () => {
    expect(loadEngineEnv(DATABASE).channels).toEqual({
      worker: {
        maxAttempts: 5,
        retryBaseMs: 2000,
        pollMs: 1000,
        leaseMs: 300_000,
        unsupportedMessageReply: expect.stringMatching(/text/),
        budgetExceededReply: expect.stringMatching(/cannot answer/),
        guardrailBlockedReply: "Sorry, I can't help with that message.",
        retentionMs: 7 * 24 * 60 * 60 * 1000,
      },
      whatsapp: { graphApiBaseUrl: 'https://graph.facebook.com', graphApiTimeoutMs: 10_000 },
      googleChat: {
        apiBaseUrl: 'https://chat.googleapis.com',
        tokenUrl: 'https://oauth2.googleapis.com/token',
        chatJwksUrl: 'https://www.googleapis.com/service_accounts/v1/jwk/chat@system.gserviceaccount.com',
        oidcJwksUrl: 'https://www.googleapis.com/oauth2/v3/certs',
        timeoutMs: 10_000,
      },
      discord: { apiBaseUrl: 'https://discord.com/api/v10', timeoutMs: 10_000 },
      // Each provider's own settings are tested beside it (channels/teams/teams-env.test.ts, …).
      teams: expect.any(Object),
      slack: { apiBaseUrl: 'https://slack.com/api/', apiTimeoutMs: 10_000 },
      telegram: { apiBaseUrl: 'https://api.telegram.org', apiTimeoutMs: 10_000 },
    });
    const custom = loadEngineEnv({
      ...DATABASE,
      GRAPH_API_BASE_URL: 'http://127.0.0.1:9999/',
      GOOGLE_CHAT_API_BASE_URL: 'http://127.0.0.1:9998/',
      DISCORD_API_BASE_URL: 'http://127.0.0.1:9998/api/v10/',
      CHANNEL_MAX_ATTEMPTS: '2',
      CHANNEL_UNSUPPORTED_MESSAGE_REPLY: 'Text only.',
      CHANNEL_BUDGET_EXCEEDED_REPLY: 'Out of budget.',
      CHANNEL_GUARDRAIL_BLOCKED_REPLY: 'Not that.',
      CHANNEL_RETENTION_DAYS: '30',
    }).channels;
    expect(custom.whatsapp.graphApiBaseUrl).toBe('http://127.0.0.1:9999');
    expect(custom.googleChat.apiBaseUrl).toBe('http://127.0.0.1:9998');
    expect(custom.discord.apiBaseUrl).toBe('http://127.0.0.1:9998/api/v10');
    expect(custom.worker).toMatchObject({
      maxAttempts: 2,
      unsupportedMessageReply: 'Text only.',
      budgetExceededReply: 'Out of budget.',
      guardrailBlockedReply: 'Not that.',
      retentionMs: 30 * 24 * 60 * 60 * 1000,
    });
    expect(() => loadEngineEnv({ ...DATABASE, CHANNEL_RETENTION_DAYS: '0' })).toThrow(/CHANNEL_RETENTION_DAYS/);
    expect(() => loadEngineEnv({ ...DATABASE, CHANNEL_GUARDRAIL_BLOCKED_REPLY: ' ' })).toThrow(
      /CHANNEL_GUARDRAIL_BLOCKED_REPLY/,
    );
    expect(() => loadEngineEnv({ ...DATABASE, GRAPH_API_BASE_URL: 'ftp://graph' })).toThrow(/GRAPH_API_BASE_URL/);
    expect(() => loadEngineEnv({ ...DATABASE, DISCORD_API_BASE_URL: 'discord' })).toThrow(/DISCORD_API_BASE_URL/);
    expect(() => loadEngineEnv({ ...DATABASE, CHANNEL_MAX_ATTEMPTS: '0' })).toThrow(/CHANNEL_MAX_ATTEMPTS/);
  });

  it('still reads the WHATSAPP_* names of the channel settings, unless the CHANNEL_* name is set too', () => {
    const legacy = {
      ...DATABASE,
      WHATSAPP_MAX_ATTEMPTS: '2',
      WHATSAPP_RETRY_BASE_MS: '20',
      WHATSAPP_POLL_MS: '30',
      WHATSAPP_LEASE_MS: '400',
      WHATSAPP_UNSUPPORTED_MESSAGE_REPLY: 'Text only.',
      WHATSAPP_BUDGET_EXCEEDED_REPLY: 'Out of budget.',
      WHATSAPP_GUARDRAIL_BLOCKED_REPLY: 'Not that.',
      WHATSAPP_RETENTION_DAYS: '30',
    };
    expect(loadEngineEnv(legacy).channels.worker).toEqual({
      maxAttempts: 2,
      retryBaseMs: 20,
      pollMs: 30,
      leaseMs: 400,
      unsupportedMessageReply: 'Text only.',
      budgetExceededReply: 'Out of budget.',
      guardrailBlockedReply: 'Not that.',
      retentionMs: 30 * 24 * 60 * 60 * 1000,
    });
    const both = loadEngineEnv({ ...legacy, CHANNEL_MAX_ATTEMPTS: '7', CHANNEL_GUARDRAIL_BLOCKED_REPLY: 'No.' });
    expect(both.channels.worker).toMatchObject({ maxAttempts: 7, guardrailBlockedReply: 'No.', pollMs: 30 });
    expect(() => loadEngineEnv({ ...DATABASE, WHATSAPP_RETENTION_DAYS: '0' })).toThrow(/WHATSAPP_RETENTION_DAYS/);
    expect(() => loadEngineEnv({ ...DATABASE, WHATSAPP_GUARDRAIL_BLOCKED_REPLY: ' ' })).toThrow(
      /WHATSAPP_GUARDRAIL_BLOCKED_REPLY/,
    );
  });

  it('leases runs for 30 s, keeps finished runs 30 days, starts 16 queued runs at once, keeps an idle pinned version 30 s, lets 10 wait per thread and 100 per caller, logs their events, takes run inputs up to 512 KiB gives runs 10 s to finish at shutdown and interrupts an hour to be answered unless ENGINE_RUN_*, ENGINE_PINNED_IDLE_MS, ENGINE_PENDING_RUNS_*, ENGINE_SHUTDOWN_GRACE_MS and ENGINE_INTERRUPT_TTL_SECONDS say otherwise', () => {
    expect(loadEngineEnv(DATABASE).runs).toEqual({
      leaseMs: 30_000,
      retentionMs: 30 * 24 * 60 * 60 * 1000,
      queueConcurrency: 16,
      queuePollMs: 1000,
      pinnedIdleMs: 30_000,
      pendingCaps: { perThread: 10, perSubject: 100 },
      eventLog: true,
      inputMaxBytes: 512 * 1024,
      shutdownGraceMs: 10_000,
      interruptTtlSeconds: 3600,
    });
    const set = {
      ...DATABASE,
      ENGINE_RUN_LEASE_MS: '600',
      ENGINE_RUN_RETENTION_DAYS: '2',
      ENGINE_RUN_QUEUE_CONCURRENCY: '3',
      ENGINE_RUN_QUEUE_POLL_MS: '250',
      ENGINE_PINNED_IDLE_MS: '60000',
      ENGINE_PENDING_RUNS_PER_THREAD: '1',
      ENGINE_PENDING_RUNS_PER_SUBJECT: '7',
      ENGINE_RUN_EVENT_LOG: 'off',
      ENGINE_RUN_INPUT_MAX_BYTES: '2048',
      ENGINE_SHUTDOWN_GRACE_MS: '0',
      ENGINE_INTERRUPT_TTL_SECONDS: '5',
    };
    expect(loadEngineEnv(set).runs).toEqual({
      leaseMs: 600,
      retentionMs: 2 * 24 * 60 * 60 * 1000,
      queueConcurrency: 3,
      queuePollMs: 250,
      pinnedIdleMs: 60_000,
      pendingCaps: { perThread: 1, perSubject: 7 },
      eventLog: false,
      inputMaxBytes: 2048,
      shutdownGraceMs: 0,
      interruptTtlSeconds: 5,
    });
    expect(() => loadEngineEnv({ ...DATABASE, ENGINE_RUN_LEASE_MS: '10' })).toThrow(/ENGINE_RUN_LEASE_MS/);
    expect(() => loadEngineEnv({ ...DATABASE, ENGINE_RUN_INPUT_MAX_BYTES: '1mb' })).toThrow(
      /ENGINE_RUN_INPUT_MAX_BYTES/,
    );
    expect(() => loadEngineEnv({ ...DATABASE, ENGINE_RUN_RETENTION_DAYS: '0' })).toThrow(/ENGINE_RUN_RETENTION_DAYS/);
    expect(() => loadEngineEnv({ ...DATABASE, ENGINE_RUN_QUEUE_CONCURRENCY: '0' })).toThrow(
      /ENGINE_RUN_QUEUE_CONCURRENCY/,
    );
    expect(() => loadEngineEnv({ ...DATABASE, ENGINE_RUN_QUEUE_POLL_MS: 'often' })).toThrow(/ENGINE_RUN_QUEUE_POLL_MS/);
    expect(() => loadEngineEnv({ ...DATABASE, ENGINE_PINNED_IDLE_MS: '5' })).toThrow(/ENGINE_PINNED_IDLE_MS/);
    expect(() => loadEngineEnv({ ...DATABASE, ENGINE_SHUTDOWN_GRACE_MS: '-1' })).toThrow(/ENGINE_SHUTDOWN_GRACE_MS/);
    expect(() => loadEngineEnv({ ...DATABASE, ENGINE_RUN_EVENT_LOG: 'false' })).toThrow(/ENGINE_RUN_EVENT_LOG/);
    for (const name of ['ENGINE_PENDING_RUNS_PER_THREAD', 'ENGINE_PENDING_RUNS_PER_SUBJECT']) {
      expect(() => loadEngineEnv({ ...DATABASE, [name]: '0' })).toThrow(new RegExp(name));
    }
  });

  it('keeps threads without activity 90 days unless ENGINE_THREAD_RETENTION_DAYS says otherwise', () => {
    expect(loadEngineEnv(DATABASE).threadRetentionMs).toBe(90 * 24 * 60 * 60 * 1000);
    expect(loadEngineEnv({ ...DATABASE, ENGINE_THREAD_RETENTION_DAYS: '7' }).threadRetentionMs).toBe(
      7 * 24 * 60 * 60 * 1000,
    );
    expect(() => loadEngineEnv({ ...DATABASE, ENGINE_THREAD_RETENTION_DAYS: '0' })).toThrow(
      /ENGINE_THREAD_RETENTION_DAYS/,
    );
  });

  it('remembers failed OIDC fetches for 30 s unless ENGINE_OIDC_FAILURE_CACHE_MS says otherwise', () => {
    expect(loadEngineEnv(DATABASE).oidcFailureTtlMs).toBe(30_000);
    expect(loadEngineEnv({ ...DATABASE, ENGINE_OIDC_FAILURE_CACHE_MS: '0' }).oidcFailureTtlMs).toBe(0);
    expect(() => loadEngineEnv({ ...DATABASE, ENGINE_OIDC_FAILURE_CACHE_MS: '-1' })).toThrow(
      /ENGINE_OIDC_FAILURE_CACHE_MS/,
    );
  });

  it('reads ENGINE_EGRESS_ALLOW, allowing nothing when it is unset or empty, and names it when it is bad', () => {
    expect(loadEngineEnv(DATABASE).egressAllow).toEqual({ hosts: new Set(), ranges: [] });
    expect(loadEngineEnv({ ...DATABASE, ENGINE_EGRESS_ALLOW: '' }).egressAllow.ranges).toEqual([]);
    const allow = loadEngineEnv({ ...DATABASE, ENGINE_EGRESS_ALLOW: 'ollama, 10.0.0.0/8' }).egressAllow;
    expect([...allow.hosts]).toEqual(['ollama']);
    expect(allow.ranges).toHaveLength(1);
    expect(() => loadEngineEnv({ ...DATABASE, ENGINE_EGRESS_ALLOW: '10.0.0.0/99' })).toThrow(
      /ENGINE_EGRESS_ALLOW: "10\.0\.0\.0\/99" is not a host name/,
    );
  });
});
