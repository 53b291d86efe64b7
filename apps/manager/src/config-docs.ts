// The configuration reference's words for each of the manager's variables, next to the schema that reads
// them: the type makes a variable without an entry (or an entry without a variable) a compile error, and
// docs/ renders the reference page from this and the schema's own defaults.
import {
  type DocumentedEnv,
  type EnvDocs,
  LOG_LEVEL_DOC,
  METRICS_ENV_DOCS,
  OPERATOR_TRACING_ENV_DOCS,
  SHARED_ENV_DOCS,
} from '@agentplane/server-kit';
import { ZManagerEnv } from './config.js';
import { DATASET_ENV_DOCS } from './datasets/dataset-settings.js';
import { ONLINE_SCORING_ENV_DOCS } from './evaluations/online/online-scoring-settings.js';
import { SCORER_ENV_DOCS } from './evaluations/scorers/scorer-settings.js';
import { EXPERIMENT_ENV_DOCS } from './experiments/experiment-settings.js';
import { WEBHOOK_ENV_DOCS } from './webhooks/webhook-settings.js';

const MANAGER_ENV_DOCS: EnvDocs<typeof ZManagerEnv.shape> = {
  LOG_LEVEL: LOG_LEVEL_DOC,
  ...SHARED_ENV_DOCS,
  ...METRICS_ENV_DOCS,
  ...OPERATOR_TRACING_ENV_DOCS,
  ...WEBHOOK_ENV_DOCS,
  ...SCORER_ENV_DOCS,
  ...ONLINE_SCORING_ENV_DOCS,
  ...DATASET_ENV_DOCS,
  ...EXPERIMENT_ENV_DOCS,
  NODE_ENV: {
    description: '`production` makes `SESSION_SECRET` required and cookies `Secure`',
  },
  DATABASE_URL: {
    description:
      "`postgresql://` URL of the platform database. The manager's user needs `CREATEROLE` (not `SUPERUSER`) and must own the tables (run the migrations as it). Under `pnpm start`, the embedded PostgreSQL unless set",
  },
  DATABASE_PREPARED_STATEMENTS: {
    description:
      'Each pooled connection prepares a query once and reuses its plan; set `false` behind a pooler that cannot keep prepared statements (PgBouncer in transaction mode before 1.21, or without `max_prepared_statements`)',
  },
  SESSION_SECRET: {
    description: 'Signs the session cookie; at least 32 characters',
    default: 'random per process, with a warning (required in production; the launcher keeps one in `.data/`)',
  },
  SESSION_SECRET_PREVIOUS: {
    description: 'Comma-separated older session secrets, still accepted after a rotation',
  },
  COOKIE_SECURE: {
    description:
      '`true` marks the session cookie `Secure` (sent over HTTPS only) and names it `__Host-sid` instead of `sid` (see [Workspaces and members](/concepts/workspaces))',
    default: '`true` when `NODE_ENV=production`, else `false`',
  },
  SESSION_COOKIE_SAME_SITE: {
    description:
      "`lax`, `strict` or `none`: the session cookie's `SameSite`. `none` is needed only when a frontend is served from another site than the manager (list it in `CORS_ORIGINS` too); it requires a `Secure` cookie, and the manager refuses to start with `none` otherwise",
  },
  PUBLIC_URL: {
    description: "The manager's public origin, for the cross-site `Origin` check behind a proxy",
    default: "the request's own origin",
  },
  CORS_ORIGINS: {
    description: 'Comma-separated frontend origins allowed to call the API with credentials',
  },
  TRUST_PROXY: {
    description:
      'Express `trust proxy`: `true`, a hop count, or addresses (`loopback, 10.0.0.0/8`); needed behind a TLS-terminating proxy',
    default: 'off',
  },
  ALLOW_SIGNUP: {
    description: '`false` closes public sign-up; create users with the CLI (`agentplane-manager create-user`)',
  },
  SECRETS_KEY: {
    description:
      "32 random bytes, base64 or hex (`openssl rand -base64 32`): seals integration tokens, MCP header and env values and the token signing key at rest (AES-256-GCM), and each agent's key is derived from it. It never leaves the manager: an engine started with it refuses to run",
    default: 'required (the launcher makes one in `.data/`)',
  },
  SECRETS_KEY_PREVIOUS: {
    description:
      'Comma-separated older keys, still used to open values sealed before a rotation. After a rotation the manager re-seals every engine config at start, and each engine needs its new credentials (its agent key changes)',
  },
  ISSUER_URL: {
    description: '`iss` of the agent tokens the manager mints; engines fetch its `/.well-known/openid-configuration`',
    default: '`PUBLIC_URL`, else `http://localhost:` and the port the manager listens on',
  },
  AGENT_TOKEN_TTL_SECONDS: {
    description:
      "Lifetime of a minted agent token (30 to 86400). A token outlives its minter's removal from the workspace until it expires (see [Agents](/concepts/agents))",
  },
  ENGINE_DATABASE_URL: {
    description:
      "Where engines reach the database, when not at the manager's address: engine credentials keep its host, port, database and options, with the agent role's user and password",
    default: '`DATABASE_URL`',
  },
  ENGINE_DB_CONNECTION_LIMIT: {
    description: "`CONNECTION LIMIT` of each agent's engine role, across that agent's engine replicas (1 to 10000)",
  },
  MAX_AGENT_CALL_DEPTH: {
    description:
      'How many agent-to-agent calls may nest (1 to 16): with 3, A → B → C → D is allowed and D calling on is refused. A call that would exceed it, or call an agent already in its chain (a cycle), gets no token: the calling model reads a tool error saying why',
  },
  MAX_AGENTS_PER_WORKSPACE: {
    description:
      "The most agents one workspace may have (1 to 10000000): each is a published config, an engine database role and what its engine stores. A create past it is a **409** problem+json (`urn:agentplane:problem:agents-per-workspace`) naming the setting; creates racing at the cap never both pass (they count under the workspace's row lock). `pnpm bench` raises it",
  },
  AGENT_VERSION_RETENTION: {
    description:
      "How many of an agent's newest versions are kept (1 to 100000). Each publish prunes the agent's older ones, except a version a run still references or a running experiment names (runs are deleted after the engine's `ENGINE_RUN_RETENTION_DAYS`); the current version is always among the newest",
  },
  MAX_SCHEDULES_PER_AGENT: {
    description:
      "The most schedules one agent may have (0 to 10000; 0 turns schedules off for new ones). A create past it is a **409** problem+json (`urn:agentplane:problem:schedules-per-agent`); creates racing at the cap never both pass (they count under the agent's row lock)",
  },
  SCHEDULER_POLL_MS: {
    description:
      "How often each manager replica's scheduler looks for due schedules (100 to 30000). A tick fires within about this long of its time; replicas share the work and fire each tick once",
  },
  SCHEDULE_MAX_CONSECUTIVE_FAILURES: {
    description:
      'How many scheduled runs in a row may fail (1 to 1000) before their schedule disables itself, with the reason shown in the API and console until someone enables it again',
  },
  ENGINE_DB_CONNECTIONS_TOTAL: {
    description:
      'Most connections the engine roles with credentials may hold together (the sum of their `ENGINE_DB_CONNECTION_LIMIT`s, and of `ENGINE_POOL_DB_CONNECTION_LIMIT` for each pool with credentials): engine credentials past it are refused with a 409',
    default: "half the server's `max_connections`",
  },
  ENGINE_DB_STATEMENT_TIMEOUT_MS: {
    description:
      "`statement_timeout` of each engine role (a role setting, in effect from its next login; applied to existing roles at the manager's start)",
  },
  ENGINE_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: {
    description: '`idle_in_transaction_session_timeout` of each engine role, likewise',
  },
  ENGINE_DB_WATCHDOG_MS: {
    description: "How often the manager's engine lock watchdog checks the engine roles' sessions (100 to 3600000)",
  },
  ENGINE_DB_BLOCKING_GRACE_MS: {
    description:
      'How long another session may wait for a lock an engine session holds before the watchdog terminates that engine session',
  },
  ENGINE_POOLS: {
    description:
      "Comma-separated `name=publicBaseUrl` pairs, one per pool engine (`main=https://engines.example.com`): a name is a lower-case letter then up to 31 of `a-z`, `0-9`, `_`; a URL is http(s) without user name, password, query or fragment. A pooled agent's `engine_url` is `<publicBaseUrl>/agents/<agent id>`, and the console may connect to each pool's origin. The manager makes each pool's database role at start. See [Placement](/concepts/placement)",
    default: 'none (every agent on a dedicated engine)',
  },
  DEFAULT_ENGINE_POOL: {
    description:
      "The pool new agents go to when neither their create nor their workspace's `default_deployment` says where; must be one of `ENGINE_POOLS`",
    default: 'none (new agents are dedicated)',
  },
  ENGINE_POOL_DB_CONNECTION_LIMIT: {
    description: "`CONNECTION LIMIT` of each pool's database role, across that pool's replicas (1 to 10000)",
  },
  AUTH_RATE_LIMIT_WINDOW_MS: {
    description:
      'Window of the per-address limit; also how long a failure count is kept after its last wait ends. Counters live in PostgreSQL, so they hold across replicas',
    default: '`900000` (15 min)',
  },
  AUTH_RATE_LIMIT_PER_IP: {
    description: 'Sign-in, sign-up and password-change attempts per address per window, whatever the account',
  },
  AUTH_FAILURES_BEFORE_BACKOFF: {
    description:
      'Failed attempts in a row for one account from one address before each further one must wait (see [Workspaces and members](/concepts/workspaces)). Replaces `AUTH_RATE_LIMIT_PER_EMAIL`, which the manager now refuses',
  },
  AUTH_BACKOFF_BASE_MS: {
    description: 'The first wait; each further failure doubles it',
    default: '`60000` (1 min)',
  },
  AUTH_BACKOFF_MAX_MS: {
    description: 'The longest wait (at least `AUTH_BACKOFF_BASE_MS`)',
    default: '`3600000` (1 h)',
  },
  AUTH_RATE_LIMIT_PER_EMAIL: {
    description:
      'Replaced by `AUTH_FAILURES_BEFORE_BACKOFF`, `AUTH_BACKOFF_BASE_MS` and `AUTH_BACKOFF_MAX_MS` (a limit on the email alone let anyone lock a user out): the manager refuses to start while it is set',
    default: 'must be unset',
  },
  INVITATION_TTL_SECONDS: {
    description: 'How long an invitation to a workspace can be accepted (60 s to 90 days)',
    default: '`604800` (7 days)',
  },
  EGRESS_ALLOW: {
    description:
      "The same format as `ENGINE_EGRESS_ALLOW`: literal addresses in these ranges are accepted in MCP `url`s, a model `baseUrl`, SSO `issuer`/`jwksUri` and an observability config's `endpoint`/`host` (others in refused ranges are a 422 that names this setting and `ENGINE_EGRESS_ALLOW`); keep it in step with the engines' setting. Under `pnpm start`, none unless you set it, and then the engine gets it too unless `ENGINE_EGRESS_ALLOW` is set: `EGRESS_ALLOW=127.0.0.1 pnpm start` for an MCP server or model on this machine",
    default: 'none (the bench and tests: `127.0.0.0/8,::1`)',
  },
  MODEL_PRICES_FILE: {
    description:
      "The price table usage reports cost runs with (see [Agents](/concepts/agents)), and whose price of an agent's model its engine counts USD budgets with (see [Budgets](/concepts/agents#budgets)); a file that cannot be read or parsed stops the manager at start, naming the file and the bad entry",
    default: '`apps/manager/model-prices.json` (shipped)',
  },
  CONSOLE_DIR: {
    description:
      'The built web console, served at `/`; when it holds no `index.html`, the manager serves the API alone',
    default: '`apps/console/dist` beside the manager (the image: `/app/console`)',
  },
  CONSOLE_ENGINE_SOURCES: {
    description:
      "Comma-separated CSP sources (`https://engines.example.com`, `https://*.example.com`, `http://localhost:*`) the console's pages may connect to besides the manager: the engines whose playground works. See [Web console](/guide/console)",
    default: 'none (the launcher: `http://localhost:*,http://127.0.0.1:*`)',
  },
};

export const MANAGER_ENV: DocumentedEnv = { service: 'manager', schema: ZManagerEnv, docs: MANAGER_ENV_DOCS };
