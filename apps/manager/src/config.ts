import { randomBytes } from 'node:crypto';
import { ZModelApiKeyEnvsSetting, ZStdioCommandsSetting } from '@agentplane/contracts';
import { type EngineRoleSettings, isSecretKey } from '@agentplane/db';
import {
  type EgressAllowList,
  METRICS_ENV_FIELDS,
  type MetricsSettings,
  NO_EGRESS_ALLOWED,
  OPERATOR_TRACING_ENV_FIELDS,
  type OperatorTracingSettings,
  parseEnv,
  readMetricsSettings,
  readOperatorTracingSettings,
  ZEgressAllowList,
  ZLogLevel,
  ZPort,
} from '@agentplane/server-kit';
import { z } from 'zod';
import { MAX_AGENT_CALL_DEPTH_DEFAULT } from './agent-calls/agent-call-chain.js';
import { MAX_AGENTS_PER_WORKSPACE_DEFAULT } from './agents/agents-per-workspace.js';
import { DEFAULT_CONSOLE_DIR } from './console/serve-console.js';
import { DATASET_ENV_FIELDS, type DatasetLimits, readDatasetLimits } from './datasets/dataset-settings.js';
import { type EnginePoolSettings, ZEnginePoolsSetting } from './engine-pools/engine-pool-settings.js';
import {
  leaseOutlivesJudge,
  ONLINE_SCORING_ENV_FIELDS,
  type OnlineScoringSettings,
  readOnlineScoringSettings,
} from './evaluations/online/online-scoring-settings.js';
import { readScorerSettings, SCORER_ENV_FIELDS, type ScorerSettings } from './evaluations/scorers/scorer-settings.js';
import {
  EXPERIMENT_ENV_FIELDS,
  type ExperimentSettings,
  readExperimentSettings,
} from './experiments/experiment-settings.js';
import type { OperatorPolicy } from './operator-policy/operator-policy.js';
import { MAX_SCHEDULES_PER_AGENT_DEFAULT } from './schedules/schedule-service.js';
import { SCHEDULE_MAX_CONSECUTIVE_FAILURES_DEFAULT, SCHEDULER_POLL_MS_DEFAULT } from './schedules/scheduler.js';
import { DEFAULT_MODEL_PRICES_FILE, loadModelPrices, type ModelPrices } from './usage/model-prices.js';
import { AGENT_VERSION_RETENTION_DEFAULT } from './versions/record-agent-versions.js';
import {
  leaseOutlivesAttempt,
  readWebhookSettings,
  WEBHOOK_ENV_FIELDS,
  type WebhookSettings,
} from './webhooks/webhook-settings.js';

const ZBooleanFlag = z.enum(['true', 'false']).transform((value) => value === 'true');
const ZCommaList = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
);
const ZOrigin = z.url().transform((value) => new URL(value).origin);
// A CSP host source: scheme, host (a leading *. allowed) and an optional port or :*, nothing that could end
// the directive or add another.
const ZConnectSource = z
  .string()
  .regex(
    /^https?:\/\/(\*\.)?[a-z0-9.-]+(:(\d+|\*))?$/i,
    'must be like https://engines.example.com, https://*.example.com or http://localhost:*',
  );

export const ZManagerEnv = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: ZPort.default(8000),
    HOST: z.string().min(1).default('0.0.0.0'),
    DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL'),
    DATABASE_PREPARED_STATEMENTS: ZBooleanFlag.default(true),
    LOG_LEVEL: ZLogLevel,
    ...METRICS_ENV_FIELDS,
    ...OPERATOR_TRACING_ENV_FIELDS,
    SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    SESSION_SECRET_PREVIOUS: ZCommaList.optional(),
    COOKIE_SECURE: ZBooleanFlag.optional(),
    SESSION_COOKIE_SAME_SITE: z.enum(['lax', 'strict', 'none']).default('lax'),
    PUBLIC_URL: ZOrigin.optional(),
    CORS_ORIGINS: ZCommaList.pipe(z.array(ZOrigin)).optional(),
    // Express's `trust proxy`: true/false, a hop count, or addresses and subnets ("loopback, 10.0.0.0/8").
    TRUST_PROXY: z
      .string()
      .transform((value): boolean | number | string =>
        value === 'true' ? true : value === 'false' ? false : /^\d+$/.test(value) ? Number(value) : value,
      )
      .optional(),
    ALLOW_SIGNUP: ZBooleanFlag.default(true),
    SECRETS_KEY: z
      .string({ error: 'is required: 32 random bytes, base64 (openssl rand -base64 32)' })
      .refine(isSecretKey, 'must be 32 random bytes, base64 or hex (openssl rand -base64 32)'),
    SECRETS_KEY_PREVIOUS: ZCommaList.optional(),
    ISSUER_URL: ZOrigin.optional(),
    AGENT_TOKEN_TTL_SECONDS: z.coerce.number().int().min(30).max(86_400).default(900),
    // Where engines reach the database, when not at DATABASE_URL's address; its user and password are
    // replaced by the engine role's.
    ENGINE_DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL, e.g. postgresql://db.internal:5432/agentplane')
      .optional(),
    ENGINE_DB_CONNECTION_LIMIT: z.coerce.number().int().min(1).max(10_000).default(20),
    MAX_AGENT_CALL_DEPTH: z.coerce.number().int().min(1).max(16).default(MAX_AGENT_CALL_DEPTH_DEFAULT),
    MAX_AGENTS_PER_WORKSPACE: z.coerce.number().int().min(1).max(10_000_000).default(MAX_AGENTS_PER_WORKSPACE_DEFAULT),
    AGENT_VERSION_RETENTION: z.coerce.number().int().min(1).max(100_000).default(AGENT_VERSION_RETENTION_DEFAULT),
    MAX_SCHEDULES_PER_AGENT: z.coerce.number().int().min(0).max(10_000).default(MAX_SCHEDULES_PER_AGENT_DEFAULT),
    // At most half of LATE_TICK_GRACE_MS (schedule-times.ts): a tick one poll late is late, not missed.
    SCHEDULER_POLL_MS: z.coerce.number().int().min(100).max(30_000).default(SCHEDULER_POLL_MS_DEFAULT),
    SCHEDULE_MAX_CONSECUTIVE_FAILURES: z.coerce
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(SCHEDULE_MAX_CONSECUTIVE_FAILURES_DEFAULT),
    ENGINE_DB_CONNECTIONS_TOTAL: z.coerce.number().int().min(1).max(1_000_000).optional(),
    ENGINE_DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(86_400_000).default(60_000),
    ENGINE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(100).max(86_400_000).default(60_000),
    ENGINE_DB_WATCHDOG_MS: z.coerce.number().int().min(100).max(3_600_000).default(5_000),
    ENGINE_DB_BLOCKING_GRACE_MS: z.coerce.number().int().min(100).max(86_400_000).default(10_000),
    ENGINE_POOLS: ZEnginePoolsSetting.optional(),
    DEFAULT_ENGINE_POOL: z.string().optional(),
    ENGINE_POOL_DB_CONNECTION_LIMIT: z.coerce.number().int().min(1).max(10_000).default(24),
    AUTH_RATE_LIMIT_WINDOW_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(15 * 60_000),
    AUTH_RATE_LIMIT_PER_IP: z.coerce.number().int().positive().default(30),
    AUTH_FAILURES_BEFORE_BACKOFF: z.coerce.number().int().positive().default(5),
    AUTH_BACKOFF_BASE_MS: z.coerce.number().int().positive().default(60_000),
    AUTH_BACKOFF_MAX_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(60 * 60_000),
    // Replaced: a limit on the email alone let anyone lock a user out.
    AUTH_RATE_LIMIT_PER_EMAIL: z
      .undefined({
        error:
          'was replaced: failed sign-ins now back off per email and address (AUTH_FAILURES_BEFORE_BACKOFF, ' +
          'AUTH_BACKOFF_BASE_MS, AUTH_BACKOFF_MAX_MS); remove it',
      })
      .optional(),
    INVITATION_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .max(90 * 86_400)
      .default(7 * 86_400),
    MCP_STDIO_COMMANDS: ZStdioCommandsSetting.optional(),
    MCP_STDIO_CWD_ROOT: z.string().regex(/^\//, 'must be an absolute path').optional(),
    MODEL_API_KEY_ENVS: ZModelApiKeyEnvsSetting.optional(),
    EGRESS_ALLOW: ZEgressAllowList.optional(),
    MODEL_PRICES_FILE: z.string().min(1).optional(),
    CONSOLE_DIR: z.string().min(1).optional(),
    CONSOLE_ENGINE_SOURCES: ZCommaList.pipe(z.array(ZConnectSource)).optional(),
    ...WEBHOOK_ENV_FIELDS,
    ...SCORER_ENV_FIELDS,
    ...ONLINE_SCORING_ENV_FIELDS,
    ...DATASET_ENV_FIELDS,
    ...EXPERIMENT_ENV_FIELDS,
  })
  .superRefine((env, ctx) => {
    if (!leaseOutlivesAttempt(env)) {
      ctx.addIssue({ code: 'custom', path: ['WEBHOOK_LEASE_MS'], message: 'must be longer than WEBHOOK_TIMEOUT_MS' });
    }
    if (!leaseOutlivesJudge(env)) {
      ctx.addIssue({
        code: 'custom',
        path: ['ONLINE_SCORING_LEASE_MS'],
        message: 'must be longer than SCORER_JUDGE_TIMEOUT_MS',
      });
    }
    if (env.NODE_ENV === 'production' && !env.SESSION_SECRET) {
      ctx.addIssue({ code: 'custom', path: ['SESSION_SECRET'], message: 'is required when NODE_ENV=production' });
    }
    if (env.SESSION_COOKIE_SAME_SITE === 'none' && !isSecureCookie(env)) {
      ctx.addIssue({
        code: 'custom',
        path: ['SESSION_COOKIE_SAME_SITE'],
        message:
          'none needs a Secure cookie (browsers drop SameSite=None without it): set COOKIE_SECURE=true and serve HTTPS',
      });
    }
    if (env.DEFAULT_ENGINE_POOL !== undefined && !env.ENGINE_POOLS?.has(env.DEFAULT_ENGINE_POOL)) {
      ctx.addIssue({
        code: 'custom',
        path: ['DEFAULT_ENGINE_POOL'],
        message: `must name one of ENGINE_POOLS (${[...(env.ENGINE_POOLS?.keys() ?? [])].join(', ') || 'none set'})`,
      });
    }
    if (env.AUTH_BACKOFF_MAX_MS < env.AUTH_BACKOFF_BASE_MS) {
      ctx.addIssue({ code: 'custom', path: ['AUTH_BACKOFF_MAX_MS'], message: 'must be at least AUTH_BACKOFF_BASE_MS' });
    }
  });

function isSecureCookie(env: { COOKIE_SECURE?: boolean | undefined; NODE_ENV: string }): boolean {
  return env.COOKIE_SECURE ?? env.NODE_ENV === 'production';
}

/**
 * `__Host-` makes browsers refuse the cookie unless it is Secure, has Path=/ and no Domain, so a
 * sibling subdomain or a plain-HTTP page cannot plant or overwrite it. Over plain HTTP (development)
 * browsers would drop such a cookie, so it keeps the short name there.
 */
export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-sid' : 'sid';
}

export type ManagerConfig = {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  /** The /metrics listener (METRICS_PORT, METRICS_HOST); undefined: no metrics are served. */
  metrics: MetricsSettings;
  /** Where the manager's own traces go (OTEL_EXPORTER_OTLP_*); undefined: not traced. */
  tracing: OperatorTracingSettings;
  databaseUrl: string;
  /** Off behind a pooler that cannot keep prepared statements (PgBouncer in transaction mode before 1.21). */
  preparedStatements: boolean;
  logLevel: string;
  session: {
    /** The first secret signs new cookies; the others still verify cookies signed before a rotation. */
    secrets: string[];
    /** True when no SESSION_SECRET was given and a random one was made for this process. */
    secretIsEphemeral: boolean;
    secureCookie: boolean;
    /** sid, or __Host-sid when the cookie is Secure. */
    cookieName: string;
    /** None lets a frontend on another site keep the session (with CORS_ORIGINS); it needs Secure. */
    sameSite: 'lax' | 'strict' | 'none';
  };
  /** The manager's own origin when it is known ahead (behind a proxy); otherwise taken from each request. */
  publicOrigin: string | undefined;
  corsOrigins: string[];
  trustProxy: boolean | number | string | undefined;
  allowSignup: boolean;
  /** Seals integration and MCP secrets at rest; previous keys still open values sealed before a rotation. */
  secretsKey: { current: string; previous: string[] };
  /** `iss` of the agent tokens the manager mints; engines discover its keys at /.well-known/. */
  issuer: string;
  /** No ISSUER_URL or PUBLIC_URL: the issuer is http://localhost with the port the manager listens on. */
  issuerIsDefault: boolean;
  agentTokenTtlSeconds: number;
  /** The most agents one workspace may have; a create past it is a 409. */
  maxAgentsPerWorkspace: number;
  /** How many of an agent's newest versions are kept (besides those runs reference). */
  agentVersionRetention: number;
  /** How many agent-to-agent calls may nest: A → B → C is 2. */
  maxAgentCallDepth: number;
  schedules: {
    /** The most schedules one agent may have; a create past it is a 409. */
    maxPerAgent: number;
    /** How often each replica's scheduler looks for due schedules. */
    pollMs: number;
    /** Runs in a row that may fail before a schedule disables itself. */
    maxConsecutiveFailures: number;
  };
  engines: {
    /** The URL engine credentials are built on: ENGINE_DATABASE_URL, else DATABASE_URL. */
    databaseUrl: string;
    /** CONNECTION LIMIT and session timeouts of every engine role. */
    roles: EngineRoleSettings;
    /** Most connections the engine roles with credentials may hold together; unset: half the server's. */
    connectionsTotal?: number;
    /** How often engine sessions are checked, and how long one may hold a lock others wait for. */
    watchdog: { intervalMs: number; blockingGraceMs: number };
    /** The pool engines (ENGINE_POOLS) and where new agents go (DEFAULT_ENGINE_POOL). */
    pools: EnginePoolSettings;
  };
  authRateLimit: {
    windowMs: number;
    perIp: number;
    /** Failed attempts in a row, per account and address, before each further one waits. */
    failuresBeforeBackoff: number;
    backoffBaseMs: number;
    backoffMaxMs: number;
  };
  invitationTtlSeconds: number;
  /** What tenants may make an engine execute or read; engines enforce the same settings. */
  operatorPolicy: OperatorPolicy;
  /** Literal addresses tenant URLs may name besides global unicast ones (EGRESS_ALLOW). */
  egressAllow: EgressAllowList;
  /** USD per million tokens by "<provider>/<name>" (MODEL_PRICES_FILE, else the shipped defaults). */
  modelPrices: ModelPrices;
  /** Outgoing webhooks: the cap on endpoints, and how the delivery worker sends and retries. */
  webhooks: WebhookSettings;
  /** Model judges' timeout, and how often a workspace may try scorers. */
  scorers: ScorerSettings;
  /** How the online scoring worker polls, leases and bounds what it keeps. */
  onlineScoring: OnlineScoringSettings;
  /** Datasets: how many per workspace, items and kept revisions per dataset, the largest import. */
  datasets: DatasetLimits;
  /** Experiments: the worker's poll, and the caps on concurrency, runs, active and kept experiments. */
  experiments: ExperimentSettings;
  console: {
    /** The built console (apps/console/dist); none there: the manager serves the API alone. */
    dir: string;
    /** The engines the console's playground may connect to, as CSP connect-src sources (the pools' among them). */
    engineSources: string[];
  };
};

export function loadManagerConfig(env: NodeJS.ProcessEnv = process.env): ManagerConfig {
  const parsed = parseEnv(ZManagerEnv, env);
  return {
    nodeEnv: parsed.NODE_ENV,
    port: parsed.PORT,
    host: parsed.HOST,
    metrics: readMetricsSettings(parsed),
    tracing: readOperatorTracingSettings(parsed),
    databaseUrl: parsed.DATABASE_URL,
    preparedStatements: parsed.DATABASE_PREPARED_STATEMENTS,
    logLevel: parsed.LOG_LEVEL,
    session: {
      secrets: [
        parsed.SESSION_SECRET ?? randomBytes(32).toString('base64url'),
        ...(parsed.SESSION_SECRET_PREVIOUS ?? []),
      ],
      secretIsEphemeral: !parsed.SESSION_SECRET,
      secureCookie: isSecureCookie(parsed),
      cookieName: sessionCookieName(isSecureCookie(parsed)),
      sameSite: parsed.SESSION_COOKIE_SAME_SITE,
    },
    publicOrigin: parsed.PUBLIC_URL,
    corsOrigins: parsed.CORS_ORIGINS ?? [],
    trustProxy: parsed.TRUST_PROXY,
    allowSignup: parsed.ALLOW_SIGNUP,
    secretsKey: { current: parsed.SECRETS_KEY, previous: parsed.SECRETS_KEY_PREVIOUS ?? [] },
    issuer: parsed.ISSUER_URL ?? parsed.PUBLIC_URL ?? `http://localhost:${parsed.PORT}`,
    issuerIsDefault: !parsed.ISSUER_URL && !parsed.PUBLIC_URL,
    agentTokenTtlSeconds: parsed.AGENT_TOKEN_TTL_SECONDS,
    maxAgentsPerWorkspace: parsed.MAX_AGENTS_PER_WORKSPACE,
    agentVersionRetention: parsed.AGENT_VERSION_RETENTION,
    maxAgentCallDepth: parsed.MAX_AGENT_CALL_DEPTH,
    schedules: {
      maxPerAgent: parsed.MAX_SCHEDULES_PER_AGENT,
      pollMs: parsed.SCHEDULER_POLL_MS,
      maxConsecutiveFailures: parsed.SCHEDULE_MAX_CONSECUTIVE_FAILURES,
    },
    engines: {
      databaseUrl: parsed.ENGINE_DATABASE_URL ?? parsed.DATABASE_URL,
      roles: {
        connectionLimit: parsed.ENGINE_DB_CONNECTION_LIMIT,
        statementTimeoutMs: parsed.ENGINE_DB_STATEMENT_TIMEOUT_MS,
        idleInTransactionTimeoutMs: parsed.ENGINE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      },
      connectionsTotal: parsed.ENGINE_DB_CONNECTIONS_TOTAL,
      watchdog: { intervalMs: parsed.ENGINE_DB_WATCHDOG_MS, blockingGraceMs: parsed.ENGINE_DB_BLOCKING_GRACE_MS },
      pools: {
        urls: parsed.ENGINE_POOLS ?? new Map(),
        defaultDeployment:
          parsed.DEFAULT_ENGINE_POOL === undefined
            ? { mode: 'dedicated' }
            : { mode: 'pool', pool: parsed.DEFAULT_ENGINE_POOL },
        roles: {
          connectionLimit: parsed.ENGINE_POOL_DB_CONNECTION_LIMIT,
          statementTimeoutMs: parsed.ENGINE_DB_STATEMENT_TIMEOUT_MS,
          idleInTransactionTimeoutMs: parsed.ENGINE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
        },
      },
    },
    authRateLimit: {
      windowMs: parsed.AUTH_RATE_LIMIT_WINDOW_MS,
      perIp: parsed.AUTH_RATE_LIMIT_PER_IP,
      failuresBeforeBackoff: parsed.AUTH_FAILURES_BEFORE_BACKOFF,
      backoffBaseMs: parsed.AUTH_BACKOFF_BASE_MS,
      backoffMaxMs: parsed.AUTH_BACKOFF_MAX_MS,
    },
    invitationTtlSeconds: parsed.INVITATION_TTL_SECONDS,
    operatorPolicy: {
      stdioCommands: parsed.MCP_STDIO_COMMANDS ?? [],
      stdioCwdRoot: parsed.MCP_STDIO_CWD_ROOT,
      modelApiKeyEnvs: parsed.MODEL_API_KEY_ENVS ?? [],
    },
    egressAllow: parsed.EGRESS_ALLOW ?? NO_EGRESS_ALLOWED,
    modelPrices: loadModelPrices(parsed.MODEL_PRICES_FILE ?? DEFAULT_MODEL_PRICES_FILE),
    webhooks: readWebhookSettings(parsed),
    scorers: readScorerSettings(parsed),
    onlineScoring: readOnlineScoringSettings(parsed),
    datasets: readDatasetLimits(parsed),
    experiments: readExperimentSettings(parsed),
    console: {
      dir: parsed.CONSOLE_DIR ?? DEFAULT_CONSOLE_DIR,
      // The pools' origins too: the playground streams from a pooled agent's derived engine_url.
      engineSources: [
        ...new Set([
          ...(parsed.CONSOLE_ENGINE_SOURCES ?? []),
          ...[...(parsed.ENGINE_POOLS?.values() ?? [])].map((url) => new URL(url).origin),
        ]),
      ],
    },
  };
}
