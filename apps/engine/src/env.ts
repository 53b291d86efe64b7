import path from 'node:path';
import {
  ASYMMETRIC_JWT_ALGORITHMS,
  RUN_INPUT_MAX_BYTES_DEFAULT,
  type TSsoConfig,
  ZIssuerUrl,
  ZModelApiKeyEnvsSetting,
  ZOidcIssuer,
  ZSsoConfig,
  ZStdioCommandsSetting,
} from '@agentplane/contracts';
import { POOL_NAME } from '@agentplane/db/engine-roles';
import { isSecretKey } from '@agentplane/db/secrets';
import {
  ConfigError,
  type EgressAllowList,
  METRICS_ENV_FIELDS,
  type MetricsSettings,
  NO_EGRESS_ALLOWED,
  parseEnv,
  readMetricsSettings,
  ZEgressAllowList,
  ZLogLevel,
  ZPort,
} from '@agentplane/server-kit';
import { z } from 'zod';
import { type ModelSettings, OPENAI_DEFAULT_BASE_URL } from './agents/llm/model-credentials.js';
import { OIDC_FAILURE_TTL_MS_DEFAULT } from './auth/jwks-resolver.js';
import { GOOGLE_CHAT_ENV_FIELDS, readGoogleChatSettings } from './channels/google-chat/google-chat-env.js';
import type { GoogleChatSettings } from './channels/google-chat/google-chat-settings.js';
import { readTeamsSettings, TEAMS_ENV_FIELDS } from './channels/teams/teams-env.js';
import type { TeamsSettings } from './channels/teams/teams-settings.js';
import type { TelegramApiSettings } from './channels/telegram/telegram-api.js';
import {
  GET_ENGINE_CREDENTIALS,
  GET_POOL_CREDENTIALS,
  readCredentialFiles,
  refusePlatformSecrets,
} from './credentials-env.js';
import {
  DEDICATED_DB_CONNECTIONS_DEFAULT,
  ENGINE_POOL_AGENT_CONCURRENCY_DEFAULT,
  ENGINE_POOL_DB_CONNECTIONS_DEFAULT,
  ENGINE_POOL_IDLE_MS_DEFAULT,
} from './hosting/pool-defaults.js';
import type { StdioPolicy } from './mcp/stdio-policy.js';
import {
  PENDING_RUNS_PER_SUBJECT_DEFAULT,
  PENDING_RUNS_PER_THREAD_DEFAULT,
  type PendingRunCaps,
} from './runs/pending-run-caps.js';
import { RUN_LEASE_MS_DEFAULT } from './runs/run-leases.js';
import { RUN_QUEUE_CONCURRENCY_DEFAULT, RUN_QUEUE_POLL_MS_DEFAULT } from './runs/run-queue.js';
import { PINNED_IDLE_MS_DEFAULT } from './snapshot/pinned-snapshots.js';
import { THREAD_RETENTION_DAYS_DEFAULT } from './threads/thread-retention.js';

const splitList = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

// A fixed reply sent in place of the agent's answer: within one WhatsApp text, never blank.
const FIXED_REPLY = z.string().trim().min(1).max(4096);
const UNSUPPORTED_REPLY = z.string().max(4096);

export const ZEngineEnv = z.object({
  PORT: ZPort.default(8001),
  HOST: z.string().min(1).default('0.0.0.0'),
  LOG_LEVEL: ZLogLevel,
  ...METRICS_ENV_FIELDS,
  AGENT_ID: z.uuid('must be the UUID of the agent this engine runs').optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
    .optional(),
  // Read by readCredentialFiles before parsing; listed so that they are validated and documented too.
  DATABASE_URL_FILE: z.string().min(1).optional(),
  AGENT_KEY_FILE: z.string().min(1).optional(),
  ENGINE_POOL_KEY_FILE: z.string().min(1).optional(),
  ENGINE_CONFIG_FILE: z.string().min(1).optional(),
  ENGINE_POOL: z
    .string()
    .regex(POOL_NAME, 'must be a pool name: a lower-case letter, then up to 31 of a-z, 0-9, _')
    .optional(),
  ENGINE_POOL_KEY: z
    .string()
    .refine(isSecretKey, "must be the pool's key (32 bytes, base64) from its credentials")
    .optional(),
  ENGINE_POOL_IDLE_MS: z.coerce.number().int().min(1000).max(86_400_000).default(ENGINE_POOL_IDLE_MS_DEFAULT),
  ENGINE_POOL_DB_CONNECTIONS: z.coerce.number().int().min(2).max(1000).optional(),
  ENGINE_POOL_AGENT_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(ENGINE_POOL_AGENT_CONCURRENCY_DEFAULT),
  ENGINE_CONFIG_POLL_MS: z.coerce.number().int().min(50).max(3_600_000).default(1000),
  ENGINE_CONFIG_LISTEN: z.enum(['true', 'false'], 'must be "true" or "false"').default('true'),
  ENGINE_AUTH: z.enum(['oidc', 'disabled'], 'must be "disabled" or unset').optional(),
  ENGINE_OIDC_ISSUER: ZOidcIssuer.optional(),
  ENGINE_OIDC_AUDIENCE: z.string().min(1).optional(),
  ENGINE_OIDC_JWKS_URI: ZIssuerUrl.optional(),
  ENGINE_OIDC_FAILURE_CACHE_MS: z.coerce.number().int().min(0).max(3_600_000).default(OIDC_FAILURE_TTL_MS_DEFAULT),
  ENGINE_OIDC_ALGORITHMS: z
    .string()
    .transform(splitList)
    .pipe(z.array(z.enum(ASYMMETRIC_JWT_ALGORITHMS)).min(1))
    .optional(),
  // The manager's tokens are trusted by default wherever it is known; http is allowed for a manager
  // reached over a private network (compose), https anywhere else.
  ENGINE_CORS_ORIGINS: z
    .string()
    .transform(splitList)
    .pipe(z.array(z.url().transform((value) => new URL(value).origin)))
    .optional(),
  ENGINE_MANAGER_ISSUER: z
    .url({ protocol: /^https?$/, error: 'must be the manager issuer URL, e.g. http://manager:8000' })
    .transform((value) => new URL(value).origin)
    .optional(),
  ENGINE_PUBLIC_URL: z
    .url({
      protocol: /^https?$/,
      error: 'must be the URL clients reach this engine at, e.g. https://agents.example.com',
    })
    .transform((value) => new URL(value).origin)
    .optional(),
  GRAPH_API_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://graph.facebook.com' })
    .transform((value) => value.replace(/\/+$/, ''))
    .default('https://graph.facebook.com'),
  GRAPH_API_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  ...GOOGLE_CHAT_ENV_FIELDS,
  DISCORD_API_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://discord.com/api/v10' })
    .transform((value) => value.replace(/\/+$/, ''))
    .default('https://discord.com/api/v10'),
  DISCORD_API_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  // The Web API client appends method names to this base, so it always ends in a slash.
  SLACK_API_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://slack.com/api/' })
    .transform((value) => `${value.replace(/\/+$/, '')}/`)
    .default('https://slack.com/api/'),
  SLACK_API_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  TELEGRAM_API_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://api.telegram.org' })
    .transform((value) => value.replace(/\/+$/, ''))
    .default('https://api.telegram.org'),
  TELEGRAM_API_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  // The channel worker's queue settings; each WHATSAPP_* name is the older name of the CHANNEL_* one,
  // still read when the CHANNEL_* one is unset (channelSetting below).
  CHANNEL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  CHANNEL_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(2000),
  CHANNEL_POLL_MS: z.coerce.number().int().min(10).max(3_600_000).default(1000),
  CHANNEL_LEASE_MS: z.coerce.number().int().min(100).max(86_400_000).default(300_000),
  CHANNEL_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(7),
  WHATSAPP_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).optional(),
  WHATSAPP_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).optional(),
  WHATSAPP_POLL_MS: z.coerce.number().int().min(10).max(3_600_000).optional(),
  WHATSAPP_LEASE_MS: z.coerce.number().int().min(100).max(86_400_000).optional(),
  WHATSAPP_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).optional(),
  ...TEAMS_ENV_FIELDS,
  ENGINE_RUN_LEASE_MS: z.coerce.number().int().min(300).max(3_600_000).default(RUN_LEASE_MS_DEFAULT),
  ENGINE_RUN_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  ENGINE_THREAD_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(THREAD_RETENTION_DAYS_DEFAULT),
  ENGINE_RUN_QUEUE_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(RUN_QUEUE_CONCURRENCY_DEFAULT),
  ENGINE_PENDING_RUNS_PER_THREAD: z.coerce.number().int().min(1).max(100_000).default(PENDING_RUNS_PER_THREAD_DEFAULT),
  ENGINE_PENDING_RUNS_PER_SUBJECT: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(PENDING_RUNS_PER_SUBJECT_DEFAULT),
  ENGINE_RUN_QUEUE_POLL_MS: z.coerce.number().int().min(10).max(3_600_000).default(RUN_QUEUE_POLL_MS_DEFAULT),
  ENGINE_PINNED_IDLE_MS: z.coerce.number().int().min(10).max(3_600_000).default(PINNED_IDLE_MS_DEFAULT),
  ENGINE_RUN_INPUT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(RUN_INPUT_MAX_BYTES_DEFAULT),
  ENGINE_RUN_EVENT_LOG: z.enum(['on', 'off'], 'must be "on" or "off"').default('on'),
  ENGINE_INTERRUPT_TTL_SECONDS: z.coerce.number().int().min(1).max(31_536_000).default(3600),
  ENGINE_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(3_600_000).default(10_000),
  CHANNEL_UNSUPPORTED_MESSAGE_REPLY: UNSUPPORTED_REPLY.default(
    'Sorry, I can only read text messages. Please send your question as text.',
  ),
  CHANNEL_BUDGET_EXCEEDED_REPLY: FIXED_REPLY.default('Sorry, I cannot answer right now. Please try again later.'),
  CHANNEL_GUARDRAIL_BLOCKED_REPLY: FIXED_REPLY.default("Sorry, I can't help with that message."),
  WHATSAPP_UNSUPPORTED_MESSAGE_REPLY: UNSUPPORTED_REPLY.optional(),
  WHATSAPP_BUDGET_EXCEEDED_REPLY: FIXED_REPLY.optional(),
  WHATSAPP_GUARDRAIL_BLOCKED_REPLY: FIXED_REPLY.optional(),
  AGENT_KEY: z
    .string()
    .refine(isSecretKey, "must be this agent's key (32 bytes, base64) from its engine credentials")
    .optional(),
  ENGINE_AGENTS_DIR: z.string().min(1).optional(),
  MCP_STDIO_COMMANDS: ZStdioCommandsSetting.optional(),
  MCP_STDIO_CWD_ROOT: z.string().regex(/^\//, 'must be an absolute path').optional(),
  MODEL_API_KEY_ENVS: ZModelApiKeyEnvsSetting.optional(),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. http://localhost:11434/v1' })
    .optional(),
  ENGINE_EGRESS_ALLOW: ZEgressAllowList.optional(),
});

/** How messages of every channel are queued, retried and answered (database mode). */
export type ChannelWorkerSettings = {
  /** Attempts per message, the first included, before it is marked failed. */
  maxAttempts: number;
  /** First retry delay; each later one doubles, with jitter. */
  retryBaseMs: number;
  /** How often the worker looks for due messages besides being woken by the webhook. */
  pollMs: number;
  /** How long a claimed message stays locked: a worker that died holding it releases it after this. */
  leaseMs: number;
  /** Sent back for anything but a text message. */
  unsupportedMessageReply: string;
  /** Sent instead of running the agent while a budget is spent, when the budget names no reply of its own. */
  budgetExceededReply: string;
  /** Sent instead of the agent's answer when a guardrail blocked the message or the reply. */
  guardrailBlockedReply: string;
  /** How long a finished message (done, failed, skipped) is kept before it is pruned. */
  retentionMs: number;
};

/** Where the engine calls Discord's API (tests point it at a local fake). */
export type DiscordSettings = {
  apiBaseUrl: string;
  /** One API call's timeout; a timeout is retried. */
  timeoutMs: number;
};

/** Where the WhatsApp Cloud API (Graph API) is reached. */
export type WhatsAppApiSettings = { graphApiBaseUrl: string; graphApiTimeoutMs: number };

/** WhatsApp's queue and API settings together, as its worker used to take them. */
export type WhatsAppSettings = ChannelWorkerSettings & WhatsAppApiSettings;

/** Where Slack's Web API is reached (SLACK_API_BASE_URL ends in a slash). */
export type SlackApiSettings = { apiBaseUrl: string; apiTimeoutMs: number };

/** The channel worker's settings, and each provider's API settings (their base URLs: tests point them at fakes). */
export type ChannelSettings = {
  worker: ChannelWorkerSettings;
  whatsapp: WhatsAppApiSettings;
  googleChat: GoogleChatSettings;
  discord: DiscordSettings;
  teams: TeamsSettings;
  slack: SlackApiSettings;
  telegram: TelegramApiSettings;
};

/** How runs are kept (database mode). */
export type RunSettings = {
  /** How long a running run's lease holds: a run whose engine stopped renewing it is failed after this. */
  leaseMs: number;
  /** How long a finished run and its events are kept before they are pruned. */
  retentionMs: number;
  /** Runs this replica has going from its agents' queues at once, all agents together; the others wait pending (fair-run-slots.ts). */
  queueConcurrency: number;
  /** How often the queue looks for work without being told. */
  queuePollMs: number;
  /** How long the snapshot of a version runs are pinned to is kept once no run uses it (ENGINE_PINNED_IDLE_MS). */
  pinnedIdleMs: number;
  /** How many runs may wait per thread and per caller; a run past either is a 429. */
  pendingCaps: PendingRunCaps;
  /**
   * Whether runs' events are stored (ENGINE_RUN_EVENT_LOG). Off, runs are still records (status, usage,
   * thread), but nothing can be replayed: rejoins and streams that follow a queued run are refused.
   */
  eventLog: boolean;
  /** The largest run input (/agent/run and /agent/runs body) accepted, in bytes; 413 above it. */
  inputMaxBytes: number;
  /** How long a graceful stop lets runs (and other requests) finish before it ends them. */
  shutdownGraceMs: number;
  /** How long a run's interrupt (a tool call waiting for approval) can be answered. */
  interruptTtlSeconds: number;
};

export type ConfigSourceSettings =
  | {
      kind: 'pool';
      pool: string;
      databaseUrl: string;
      /** Opens the secrets of the configs of the agents placed on this pool, and no other's. */
      poolKey: string;
      pollMs: number;
      listen: boolean;
      /** An agent without requests or runs for this long is unloaded (ENGINE_POOL_IDLE_MS). */
      idleMs: number;
    }
  | {
      kind: 'database';
      agentId: string;
      databaseUrl: string;
      /** Opens the secrets of this agent's config, and no other agent's. */
      agentKey: string;
      pollMs: number;
      listen: boolean;
    }
  | { kind: 'file'; path: string };

export type EngineEnv = {
  /** The PostgreSQL connections the engine holds at most, whatever the number of its agents (ENGINE_POOL_DB_CONNECTIONS). */
  dbConnections: number;
  /** Runs one agent may have going from its queue at once on a pool engine (ENGINE_POOL_AGENT_CONCURRENCY). */
  poolAgentConcurrency: number;
  port: number;
  host: string;
  logLevel: string;
  /** The /metrics listener (METRICS_PORT, METRICS_HOST); undefined: no metrics are served. */
  metrics: MetricsSettings;
  source: ConfigSourceSettings;
  /** True only when ENGINE_AUTH=disabled: runs are then served without a token when no OIDC config exists. */
  authDisabled: boolean;
  /** The ENGINE_OIDC_* settings, used when the agent has no SSO config of its own. */
  oidcFallback: TSsoConfig | undefined;
  /** Tokens the manager mints for this agent (iss = this, aud = the agent id) are accepted too. */
  managerIssuer: string | undefined;
  /** How long a failed OIDC discovery or JWKS fetch is remembered before that issuer is asked again. */
  oidcFailureTtlMs: number;
  /** Browser origins allowed to call the agent endpoints with a bearer token. */
  corsOrigins: string[];
  /** The origin clients reach the engine at (ENGINE_PUBLIC_URL); undefined: the one each request names. */
  publicOrigin: string | undefined;
  channels: ChannelSettings;
  runs: RunSettings;
  /** How long a conversation thread without activity is kept before it is pruned (database mode). */
  threadRetentionMs: number;
  /** The operator's model key and server, and the key variables agents may name (MODEL_API_KEY_ENVS). */
  models: ModelSettings;
  /** The stdio MCP command lines and working directories the operator permits. */
  stdio: StdioPolicy;
  /** Where LANGGRAPH graph and CUSTOM module paths are resolved (ENGINE_AGENTS_DIR, else the working directory). */
  agentsDir: string;
  /** Also where LangGraph thread memory is kept; without it, graphs remember threads in process memory. */
  databaseUrl: string | undefined;
  /** Hosts and ranges tenant-chosen URLs may reach besides global unicast addresses (ENGINE_EGRESS_ALLOW). */
  egressAllow: EgressAllowList;
};

type ParsedEnv = z.infer<typeof ZEngineEnv>;

function readPoolSource(parsed: ParsedEnv, pool: string): ConfigSourceSettings {
  const { DATABASE_URL, ENGINE_POOL_KEY } = parsed;
  if (parsed.AGENT_ID !== undefined || parsed.ENGINE_CONFIG_FILE !== undefined) {
    throw new ConfigError(
      'Invalid environment:\n  ENGINE_POOL: a pool serves the agents placed on it; set it or AGENT_ID or ENGINE_CONFIG_FILE, not several',
    );
  }
  if (DATABASE_URL === undefined || ENGINE_POOL_KEY === undefined) {
    const missing = DATABASE_URL === undefined ? 'DATABASE_URL' : 'ENGINE_POOL_KEY';
    throw new ConfigError(
      `Invalid environment:\n  ${missing}: required when ENGINE_POOL is set; ${GET_POOL_CREDENTIALS}`,
    );
  }
  return {
    kind: 'pool',
    pool,
    databaseUrl: DATABASE_URL,
    poolKey: ENGINE_POOL_KEY,
    pollMs: parsed.ENGINE_CONFIG_POLL_MS,
    listen: parsed.ENGINE_CONFIG_LISTEN === 'true',
    idleMs: parsed.ENGINE_POOL_IDLE_MS,
  };
}

function readSource(parsed: ParsedEnv): ConfigSourceSettings {
  const { AGENT_ID, DATABASE_URL, ENGINE_CONFIG_FILE } = parsed;
  if (parsed.ENGINE_POOL !== undefined) return readPoolSource(parsed, parsed.ENGINE_POOL);
  if (ENGINE_CONFIG_FILE !== undefined) {
    if (AGENT_ID !== undefined) {
      throw new ConfigError('Invalid environment:\n  ENGINE_CONFIG_FILE: set it or AGENT_ID, not both');
    }
    return { kind: 'file', path: ENGINE_CONFIG_FILE };
  }
  if (AGENT_ID === undefined) {
    throw new ConfigError(
      'Invalid environment:\n  AGENT_ID: required (with DATABASE_URL) unless ENGINE_CONFIG_FILE names a config file',
    );
  }
  if (DATABASE_URL === undefined) {
    throw new ConfigError(
      `Invalid environment:\n  DATABASE_URL: required when AGENT_ID is set; ${GET_ENGINE_CREDENTIALS}`,
    );
  }
  if (parsed.AGENT_KEY === undefined) {
    throw new ConfigError(
      `Invalid environment:\n  AGENT_KEY: required when AGENT_ID is set; ${GET_ENGINE_CREDENTIALS}`,
    );
  }
  return {
    kind: 'database',
    agentId: AGENT_ID,
    databaseUrl: DATABASE_URL,
    agentKey: parsed.AGENT_KEY,
    pollMs: parsed.ENGINE_CONFIG_POLL_MS,
    listen: parsed.ENGINE_CONFIG_LISTEN === 'true',
  };
}

function readOidcFallback(parsed: ParsedEnv): TSsoConfig | undefined {
  const { ENGINE_OIDC_ISSUER: issuer, ENGINE_OIDC_AUDIENCE: audience } = parsed;
  if (issuer === undefined && audience === undefined) return undefined;
  if (issuer === undefined || audience === undefined) {
    const missing = issuer === undefined ? 'ENGINE_OIDC_ISSUER' : 'ENGINE_OIDC_AUDIENCE';
    throw new ConfigError(
      `Invalid environment:\n  ${missing}: required when the other ENGINE_OIDC_* variables are set`,
    );
  }
  return ZSsoConfig.parse({
    enabled: true,
    issuer,
    audience,
    ...(parsed.ENGINE_OIDC_JWKS_URI === undefined ? {} : { jwksUri: parsed.ENGINE_OIDC_JWKS_URI }),
    ...(parsed.ENGINE_OIDC_ALGORITHMS === undefined ? {} : { algorithms: parsed.ENGINE_OIDC_ALGORITHMS }),
  });
}

type LegacyName<K> = K extends `CHANNEL_${infer Rest}` ? `WHATSAPP_${Rest}` : never;

/** A CHANNEL_* setting, or its older WHATSAPP_* name when only that one is set. */
function channelSetting<K extends keyof ParsedEnv & `CHANNEL_${string}`>(
  parsed: ParsedEnv,
  set: Record<string, string | undefined>,
  name: K,
): ParsedEnv[K] {
  const legacy = name.replace(/^CHANNEL_/, 'WHATSAPP_') as LegacyName<K> & keyof ParsedEnv;
  if (set[name] !== undefined) return parsed[name];
  return (parsed[legacy] as ParsedEnv[K] | undefined) ?? parsed[name];
}

function readChannelSettings(parsed: ParsedEnv, set: Record<string, string | undefined>): ChannelSettings {
  const setting = <K extends keyof ParsedEnv & `CHANNEL_${string}`>(name: K) => channelSetting(parsed, set, name);
  return {
    worker: {
      maxAttempts: setting('CHANNEL_MAX_ATTEMPTS'),
      retryBaseMs: setting('CHANNEL_RETRY_BASE_MS'),
      pollMs: setting('CHANNEL_POLL_MS'),
      leaseMs: setting('CHANNEL_LEASE_MS'),
      unsupportedMessageReply: setting('CHANNEL_UNSUPPORTED_MESSAGE_REPLY'),
      budgetExceededReply: setting('CHANNEL_BUDGET_EXCEEDED_REPLY'),
      guardrailBlockedReply: setting('CHANNEL_GUARDRAIL_BLOCKED_REPLY'),
      retentionMs: setting('CHANNEL_RETENTION_DAYS') * 24 * 60 * 60 * 1000,
    },
    whatsapp: { graphApiBaseUrl: parsed.GRAPH_API_BASE_URL, graphApiTimeoutMs: parsed.GRAPH_API_TIMEOUT_MS },
    googleChat: readGoogleChatSettings(parsed),
    discord: { apiBaseUrl: parsed.DISCORD_API_BASE_URL, timeoutMs: parsed.DISCORD_API_TIMEOUT_MS },
    teams: readTeamsSettings(parsed),
    slack: { apiBaseUrl: parsed.SLACK_API_BASE_URL, apiTimeoutMs: parsed.SLACK_API_TIMEOUT_MS },
    telegram: { apiBaseUrl: parsed.TELEGRAM_API_BASE_URL, apiTimeoutMs: parsed.TELEGRAM_API_TIMEOUT_MS },
  };
}

/** Reads the engine's environment once at start-up; a missing or bad variable stops it with the variable's name. */
export function loadEngineEnv(env: NodeJS.ProcessEnv = process.env): EngineEnv {
  // Compose files pass unset variables as empty strings (`AGENT_ID: ${AGENT_ID:-}`): empty means unset.
  const set = readCredentialFiles(Object.fromEntries(Object.entries(env).filter(([, value]) => value !== '')));
  refusePlatformSecrets(set);
  const parsed = parseEnv(ZEngineEnv, set);
  return {
    // A dedicated engine's connections count against its agent role's limit, shared by its replicas.
    dbConnections:
      parsed.ENGINE_POOL_DB_CONNECTIONS ??
      (parsed.ENGINE_POOL === undefined ? DEDICATED_DB_CONNECTIONS_DEFAULT : ENGINE_POOL_DB_CONNECTIONS_DEFAULT),
    poolAgentConcurrency: parsed.ENGINE_POOL_AGENT_CONCURRENCY,
    port: parsed.PORT,
    host: parsed.HOST,
    logLevel: parsed.LOG_LEVEL,
    metrics: readMetricsSettings(parsed),
    source: readSource(parsed),
    authDisabled: parsed.ENGINE_AUTH === 'disabled',
    oidcFallback: readOidcFallback(parsed),
    managerIssuer: parsed.ENGINE_MANAGER_ISSUER,
    oidcFailureTtlMs: parsed.ENGINE_OIDC_FAILURE_CACHE_MS,
    corsOrigins: parsed.ENGINE_CORS_ORIGINS ?? [],
    publicOrigin: parsed.ENGINE_PUBLIC_URL,
    channels: readChannelSettings(parsed, set),
    runs: {
      leaseMs: parsed.ENGINE_RUN_LEASE_MS,
      retentionMs: parsed.ENGINE_RUN_RETENTION_DAYS * 24 * 60 * 60 * 1000,
      queueConcurrency: parsed.ENGINE_RUN_QUEUE_CONCURRENCY,
      queuePollMs: parsed.ENGINE_RUN_QUEUE_POLL_MS,
      pinnedIdleMs: parsed.ENGINE_PINNED_IDLE_MS,
      pendingCaps: {
        perThread: parsed.ENGINE_PENDING_RUNS_PER_THREAD,
        perSubject: parsed.ENGINE_PENDING_RUNS_PER_SUBJECT,
      },
      eventLog: parsed.ENGINE_RUN_EVENT_LOG === 'on',
      inputMaxBytes: parsed.ENGINE_RUN_INPUT_MAX_BYTES,
      shutdownGraceMs: parsed.ENGINE_SHUTDOWN_GRACE_MS,
      interruptTtlSeconds: parsed.ENGINE_INTERRUPT_TTL_SECONDS,
    },
    threadRetentionMs: parsed.ENGINE_THREAD_RETENTION_DAYS * 24 * 60 * 60 * 1000,
    models: {
      operatorApiKey: parsed.OPENAI_API_KEY,
      operatorBaseUrl: parsed.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL,
      keyVariables: new Map((parsed.MODEL_API_KEY_ENVS ?? []).map((name) => [name, set[name]])),
    },
    stdio: { commands: parsed.MCP_STDIO_COMMANDS ?? [], cwdRoot: parsed.MCP_STDIO_CWD_ROOT },
    agentsDir: path.resolve(parsed.ENGINE_AGENTS_DIR ?? process.cwd()),
    databaseUrl: parsed.DATABASE_URL,
    egressAllow: parsed.ENGINE_EGRESS_ALLOW ?? NO_EGRESS_ALLOWED,
  };
}
