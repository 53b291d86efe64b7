// How much a tenant may store, in one place. Every bound of a request body, and of what the manager
// publishes from it, is one of these; zod's max() turns them into maxLength/maxItems in the OpenAPI document.

/** A request body, in bytes (413 above it). */
export const JSON_BODY_MAX_BYTES = 1024 * 1024;
/** How deeply a request body may nest objects and arrays (422 naming the path below that depth). */
export const JSON_MAX_DEPTH = 32;

/**
 * An id a client gives an engine run: its runId, threadId, parentRunId, message and tool call ids. They
 * go into URLs, headers, keys and NOTIFY payloads (at most 8000 bytes), so they are bounded well below.
 */
export const AGUI_ID_MAX_LENGTH = 512;
/** A run input (the body of an engine's /agent/run and /agent/runs), in bytes (413 above it). */
export const RUN_INPUT_MAX_BYTES_DEFAULT = 512 * 1024;

/** A published engine_config (the agent with every resource it uses), in bytes of stored JSON. */
export const ENGINE_CONFIG_MAX_BYTES = 256 * 1024;

/** An email address (RFC 5321) and a domain name (RFC 1035). */
export const EMAIL_MAX_LENGTH = 254;
export const DOMAIN_MAX_LENGTH = 253;
/** Names of resources, workspaces and users. */
export const NAME_MAX_LENGTH = 200;
/** An agent's description. */
export const DESCRIPTION_MAX_LENGTH = 2000;
/** An LLM agent's instructions (its system prompt). */
export const INSTRUCTIONS_MAX_LENGTH = 100_000;
/** Short identifiers inside a config: an MCP server's name, a model name, a phone number id, an encoding. */
export const IDENTIFIER_MAX_LENGTH = 256;
/** URLs an engine connects to, and an SSO audience (often a URL itself). */
export const URL_MAX_LENGTH = 2048;
/** File system paths: a stdio command, its working directory, an agent module reference. */
export const PATH_MAX_LENGTH = 1024;
/** A secret as sent (a token, an API key, a header or env value); its sealed form is longer. */
export const SECRET_MAX_LENGTH = 8192;

/** A stdio MCP server's arguments: how many, and how long each. */
export const MCP_ARGS_MAX_ITEMS = 64;
export const MCP_ARG_MAX_LENGTH = 4096;
/** Entries of an MCP server's `headers` and of its `env`. */
export const MCP_MAP_MAX_ENTRIES = 64;
/** A header or environment variable name. */
export const MCP_MAP_KEY_MAX_LENGTH = 256;
/** An MCP server's `sessionKwargs`: its size as JSON in bytes, and how deeply it nests. */
export const SESSION_KWARGS_MAX_BYTES = 16 * 1024;
export const SESSION_KWARGS_MAX_DEPTH = 8;

/** A schedule's message, the user message each of its runs starts with. */
export const SCHEDULE_MESSAGE_MAX_LENGTH = 16_000;
/** A cron expression, and an IANA time zone name (the longest in the database is 32). */
export const CRON_EXPRESSION_MAX_LENGTH = 200;
export const TIME_ZONE_MAX_LENGTH = 64;

/** Resources one agent may reference, per kind. */
export const AGENT_RESOURCE_IDS_MAX_ITEMS = 100;
/** An SSO config's allow-lists. */
export const SSO_ALLOWED_EMAILS_MAX_ITEMS = 1000;
export const SSO_ALLOWED_DOMAINS_MAX_ITEMS = 1000;

/**
 * Keys no JSON object may have: JSON.parse keeps `__proto__` as data, but copying the object into
 * another sets the copy's prototype instead, and validation skips it, so the entry would vanish silently.
 */
export const RESERVED_OBJECT_KEYS: ReadonlySet<string> = new Set(['__proto__']);

/** An agent's tool policy: patterns per list (allow, deny, approval), and the length of each (a tool name's). */
export const TOOL_PATTERNS_MAX_ITEMS = 100;
export const TOOL_PATTERN_MAX_LENGTH = 64;
