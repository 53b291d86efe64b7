// The configuration reference's words for each of the engine's variables, next to the schema that reads
// them: the type makes a variable without an entry (or an entry without a variable) a compile error, and
// docs/ renders the reference page from this and the schema's own defaults.
import {
  type DocumentedEnv,
  type EnvDocs,
  LOG_LEVEL_DOC,
  METRICS_ENV_DOCS,
  SHARED_ENV_DOCS,
} from '@agentplane/server-kit';
import { GOOGLE_CHAT_ENV_DOCS } from './channels/google-chat/google-chat-env.js';
import { TEAMS_ENV_DOCS } from './channels/teams/teams-env.js';
import { ZEngineEnv } from './env.js';

const ENGINE_ENV_DOCS: EnvDocs<typeof ZEngineEnv.shape> = {
  LOG_LEVEL: LOG_LEVEL_DOC,
  ...SHARED_ENV_DOCS,
  ...METRICS_ENV_DOCS,
  AGENT_ID: {
    description: 'UUID of the agent this engine runs (database mode; with `DATABASE_URL` and `AGENT_KEY`)',
  },
  DATABASE_URL: {
    description:
      "The `postgresql://` URL of the agent's own database role (a pool engine's: of its pool's role), from its engine credentials. The engine keeps LangGraph thread memory there (schema `langgraph_<agent id>`), and the WhatsApp queue and conversation threads, in file mode too when set",
    default: 'required with `AGENT_ID` or `ENGINE_POOL`',
  },
  DATABASE_URL_FILE: {
    description: "A file holding the engine's `DATABASE_URL` (the Docker/Kubernetes secrets convention; recommended)",
  },
  ENGINE_CONFIG_FILE: {
    description: 'A YAML or JSON engine config, for running without a database (instead of `AGENT_ID`)',
  },
  ENGINE_POOL: {
    description:
      "Makes the engine a **pool**: it serves every agent placed on this pool (with `DATABASE_URL` = the pool role's login and `ENGINE_POOL_KEY`, from `agentplane-manager engine-credentials --pool <name>`), each under `/agents/{agentId}`. Set it, `AGENT_ID` or `ENGINE_CONFIG_FILE`. See [the engine](/concepts/engine). Under `pnpm start`, the name of the pool it runs; pool roles are cluster-wide, so two platforms sharing one PostgreSQL server need two names",
    default: 'none (the launcher: `default`)',
  },
  ENGINE_POOL_KEY_FILE: {
    description: 'A file holding `ENGINE_POOL_KEY` (recommended)',
  },
  ENGINE_POOL_KEY: {
    description:
      "The pool's key (32 bytes, base64): opens the sealed configs of the agents placed on this pool, each bound to its agent id, and no other's",
    default: 'required with `ENGINE_POOL`',
  },
  ENGINE_POOL_IDLE_MS: {
    description:
      'A pooled agent with no request and no run for this long is unloaded (its runtime, MCP connections and stdio servers closed); its next request loads it again (1000 to 86400000)',
  },
  ENGINE_POOL_DB_CONNECTIONS: {
    description:
      "The most PostgreSQL connections the engine holds, whatever the number of its agents (2 to 1000); one more is its LISTEN connection. A dedicated engine's count against its agent role's `ENGINE_DB_CONNECTION_LIMIT` (20), shared by its replicas; a pool's against the pool role's `ENGINE_POOL_DB_CONNECTION_LIMIT` (24)",
    default: '`10` on a pool, `4` on a dedicated engine',
  },
  ENGINE_POOL_AGENT_CONCURRENCY: {
    description:
      "On a pool, the runs one agent may have going from its queue at once, so that one tenant's backlog cannot take every slot (1 to 10000)",
  },
  ENGINE_CONFIG_POLL_MS: {
    description: 'How often the engine polls its config version (50 to 3600000)',
  },
  ENGINE_CONFIG_LISTEN: {
    description:
      "`false` skips the `LISTEN` on the agent's config channel (behind PgBouncer in transaction mode); polling alone still follows changes",
  },
  ENGINE_AUTH: {
    description:
      '`disabled` serves runs without a token when no OIDC setting exists at all (logged as a warning); otherwise such an engine refuses runs',
    default: 'on',
  },
  ENGINE_OIDC_ISSUER: {
    description: 'OIDC settings used when the agent has no SSO config (set both)',
  },
  ENGINE_OIDC_AUDIENCE: {
    description: 'OIDC settings used when the agent has no SSO config (set both)',
  },
  ENGINE_OIDC_JWKS_URI: {
    description: "The issuer's JWKS, skipping discovery",
    default: 'discovered',
  },
  ENGINE_OIDC_FAILURE_CACHE_MS: {
    description:
      'How long a failed OIDC discovery or JWKS fetch (unreachable, not 200, too large) is remembered: tokens naming that issuer meanwhile get 503 without a new fetch, so forged tokens cannot make the engine fetch on every request (0 to 3600000; 0 retries at every token)',
  },
  ENGINE_OIDC_ALGORITHMS: {
    description: 'Comma list of allowed public-key algorithms',
    default: '`RS256,ES256`',
  },
  ENGINE_CORS_ORIGINS: {
    description: 'Comma-separated browser origins allowed to call the agent endpoints with a bearer token (no cookies)',
  },
  ENGINE_MANAGER_ISSUER: {
    description:
      "The manager's `ISSUER_URL`: tokens it mints for this agent (`aud` = agent id, ES256) are accepted besides the agent's SSO config, and an agent that calls other agents as tools (MCP servers of transport `agent`) asks it for each call's token at `<ISSUER_URL>/api/v1/agent-calls/tokens`; without it such tools are unavailable. http is allowed for a manager on a private network",
  },
  ENGINE_PUBLIC_URL: {
    description:
      "The origin clients reach this engine at, behind a proxy or load balancer (e.g. `https://agents.example.com`): the MCP endpoint's protected resource metadata names URLs under it. Unset: the request's own scheme and Host",
  },
  GRAPH_API_BASE_URL: {
    description: 'WhatsApp Cloud API base URL (tests point it at a local fake)',
  },
  GRAPH_API_TIMEOUT_MS: {
    description: 'Timeout of one Graph API call; a timeout is retried',
  },
  ...GOOGLE_CHAT_ENV_DOCS,
  DISCORD_API_BASE_URL: {
    description:
      'Discord API base URL, version included (tests point it at a local fake): interaction replies, edits and follow-ups go to `<url>/webhooks/{application id}/{interaction token}`',
  },
  DISCORD_API_TIMEOUT_MS: {
    description: 'Timeout of one Discord API call; a timeout is retried',
  },
  SLACK_API_BASE_URL: {
    description:
      'Slack Web API base URL, where `chat.postMessage` and `chat.update` are called (tests point it at a local fake)',
  },
  SLACK_API_TIMEOUT_MS: {
    description: 'Timeout of one Slack Web API call; a timeout is retried',
  },
  TELEGRAM_API_BASE_URL: {
    description:
      'Telegram Bot API base URL, without `/bot<token>` (a local Bot API server, or a fake in tests). See [Telegram](/channels/telegram)',
  },
  TELEGRAM_API_TIMEOUT_MS: {
    description: 'Timeout of one Telegram Bot API call; a timeout is retried',
  },
  CHANNEL_MAX_ATTEMPTS: {
    description: 'Attempts per channel message (WhatsApp, Slack, Telegram, …) before it is marked failed',
  },
  CHANNEL_RETRY_BASE_MS: {
    description:
      "First retry delay of a channel message; doubles per attempt, ±50 % jitter, at most 1 h, never sooner than the provider's `Retry-After`",
  },
  CHANNEL_POLL_MS: {
    description: 'How often the channel worker looks for due messages (its webhooks also wake it)',
  },
  CHANNEL_LEASE_MS: {
    description: 'How long a claimed channel message stays locked; longer than the slowest agent run',
  },
  CHANNEL_RETENTION_DAYS: {
    description:
      "Days a finished queue row (`done`, `failed`, `skipped`) is kept before the engine deletes it (1 to 3650). A message id a provider sends again after its row is gone is answered again, so keep it longer than the providers' retry windows (Meta's: up to 7 days)",
  },
  WHATSAPP_MAX_ATTEMPTS: { description: 'The older name of `CHANNEL_MAX_ATTEMPTS`, read when that is unset' },
  WHATSAPP_RETRY_BASE_MS: { description: 'The older name of `CHANNEL_RETRY_BASE_MS`, read when that is unset' },
  WHATSAPP_POLL_MS: { description: 'The older name of `CHANNEL_POLL_MS`, read when that is unset' },
  WHATSAPP_LEASE_MS: { description: 'The older name of `CHANNEL_LEASE_MS`, read when that is unset' },
  WHATSAPP_RETENTION_DAYS: { description: 'The older name of `CHANNEL_RETENTION_DAYS`, read when that is unset' },
  ...TEAMS_ENV_DOCS,
  ENGINE_RUN_LEASE_MS: {
    description:
      'How long a running run\'s lease holds (300 to 3600000); each replica renews its runs\' leases every third of it, and any replica marks a run whose lease expired `failed` ("engine lost")',
  },
  ENGINE_INTERRUPT_TTL_SECONDS: {
    description:
      "Seconds a run's interrupt (a tool call waiting for a human's approval, see the tool policy's `approval`) can be answered by a resuming run (1 to 31536000); after that, a resume of it is a 409 (`interrupt-expired`)",
  },
  ENGINE_RUN_RETENTION_DAYS: {
    description:
      'Days a finished run (`succeeded`, `failed`, `cancelled`, `interrupted`, `input_required`) and its events are kept before the engine deletes them (1 to 3650)',
  },
  ENGINE_THREAD_RETENTION_DAYS: {
    description:
      'Days a conversation thread (AG-UI or WhatsApp) and its messages are kept after its last activity, while no run waits or runs on it, before the engine deletes them (1 to 3650). See [Engine API](/api/engine)',
  },
  ENGINE_RUN_QUEUE_CONCURRENCY: {
    description:
      "Runs each replica has going at once from the threads' queues, all the agents it serves together (background runs, and streaming runs under `enqueue`, `interrupt` or `rollback`; 1 to 10000); the others stay `pending` until a slot frees on any replica. A freed slot goes round-robin to the agents with runs waiting, so one agent's backlog does not hold back another's runs",
  },
  ENGINE_PENDING_RUNS_PER_THREAD: {
    description:
      'Runs that may wait `pending` on one thread (1 to 100000); one more is a **429** (`urn:agentplane:problem:pending-runs-per-thread`, `Retry-After: 5`)',
  },
  ENGINE_PENDING_RUNS_PER_SUBJECT: {
    description:
      "Runs that may wait `pending` for one caller (the token's issuer and subject; without auth, all callers together), across its threads (1 to 1000000); one more is a **429** (`urn:agentplane:problem:pending-runs-per-subject`, `Retry-After: 5`)",
  },
  ENGINE_RUN_QUEUE_POLL_MS: {
    description: 'How often a replica looks for waiting runs without being told (10 to 3600000)',
  },
  ENGINE_PINNED_IDLE_MS: {
    description:
      "How long an engine keeps the snapshot (runtime, MCP connections) of an agent version that runs are pinned to, other than the one it serves, once no run uses it (an experiment's runs; 10 to 3600000). At most 4 such versions are kept per agent",
  },
  ENGINE_RUN_INPUT_MAX_BYTES: {
    description:
      'The largest run input (the JSON body of `/agent/run` and `/agent/runs`) an engine accepts, in bytes (1024 to 67108864); a larger one is a 413 before anything is stored',
    default: '`524288` (512 KiB)',
  },
  ENGINE_RUN_EVENT_LOG: {
    description:
      "`off` stops storing runs' events (database mode): runs are still records (row, status, usage, thread), but nothing can replay or follow them, so rejoins and streaming runs under `enqueue`, `interrupt` or `rollback` are a 409 (`event-log-off`). Set it alike on every replica of an agent. See [Engine API](/api/engine)",
  },
  ENGINE_SHUTDOWN_GRACE_MS: {
    description:
      'On SIGTERM, how long runs and other requests may go on before the engine ends them (runs end `failed`, "engine stopped"); keep it below your orchestrator\'s kill timeout (0 to 3600000)',
  },
  CHANNEL_UNSUPPORTED_MESSAGE_REPLY: {
    description: 'Reply to a channel message the agent cannot read (anything but text)',
  },
  CHANNEL_BUDGET_EXCEEDED_REPLY: {
    description:
      "Reply to a channel message while a budget is spent, when neither the agent's nor the workspace's budget sets its own `whatsapp_reply` (see [Budgets](/concepts/agents#budgets))",
  },
  CHANNEL_GUARDRAIL_BLOCKED_REPLY: {
    description:
      "Reply to a channel message when one of the agent's guardrails blocked the message or the agent's reply; the thread keeps nothing of that turn",
  },
  WHATSAPP_UNSUPPORTED_MESSAGE_REPLY: {
    description: 'The older name of `CHANNEL_UNSUPPORTED_MESSAGE_REPLY`, read when that is unset',
  },
  WHATSAPP_BUDGET_EXCEEDED_REPLY: {
    description: 'The older name of `CHANNEL_BUDGET_EXCEEDED_REPLY`, read when that is unset',
  },
  WHATSAPP_GUARDRAIL_BLOCKED_REPLY: {
    description: 'The older name of `CHANNEL_GUARDRAIL_BLOCKED_REPLY`, read when that is unset',
  },
  AGENT_KEY_FILE: {
    description: 'A file holding `AGENT_KEY` (recommended: it keeps the key out of the process environment)',
  },
  AGENT_KEY: {
    description:
      "The agent's key from its engine credentials (32 bytes, base64): opens the secrets of this agent's config and no other's",
    default: 'required with `AGENT_ID`',
  },
  ENGINE_AGENTS_DIR: {
    description:
      'Where `LANGGRAPH` graph and `CUSTOM` module paths are resolved: paths are relative, and a module whose real path (symlinks followed) is outside this directory or inside a `node_modules` is refused',
    default: 'the working directory (`/app` in the image)',
  },
  OPENAI_API_KEY: {
    description:
      "The operator's key for `openai` models that name no key of their own; it is only ever sent to `OPENAI_BASE_URL`, never to an agent's own `baseUrl`. With the launcher, makes the demo agent use a real model",
  },
  OPENAI_BASE_URL: {
    description:
      "The operator's OpenAI-compatible server (vLLM, Ollama, LM Studio), used by `openai` models whose config has no `baseUrl`",
    default: '`https://api.openai.com/v1`',
  },
  ENGINE_EGRESS_ALLOW: {
    description:
      'Comma-separated host names, addresses and CIDR ranges that tenant-chosen URLs (MCP servers, a model `baseUrl`, an SSO issuer and its JWKS) may reach besides public addresses; a host name listed here is trusted whatever it resolves to. See [Security model](/security)',
    default: "none (the bench and tests: `127.0.0.0/8,::1`; the launcher: `EGRESS_ALLOW`'s value)",
  },
};

export const ENGINE_ENV: DocumentedEnv = { service: 'engine', schema: ZEngineEnv, docs: ENGINE_ENV_DOCS };
