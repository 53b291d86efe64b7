import { z } from 'zod';
import type { EnvVarDoc } from './env-docs.js';

export const ZPort = z.coerce.number().int().min(0).max(65_535);
export const ZLogLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

export const LOG_LEVEL_DOC: EnvVarDoc = {
  description:
    '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent` (pino JSON logs, one line per request without headers; secrets are redacted)',
};

/** What both services read, and mean the same by: one description for each. */
export const SHARED_ENV_DOCS = {
  PORT: {
    description:
      'HTTP port; `0` takes any free port, which the service logs (`listening`) and reports to a supervisor that started it with an IPC channel',
  },
  HOST: {
    description:
      "Interface to listen on. Under `pnpm start` only this machine reaches the platform unless you set it; a container needs `0.0.0.0`, the images' default",
    default: '`0.0.0.0` (the launcher: `127.0.0.1`)',
  },
  MCP_STDIO_COMMANDS: {
    description:
      'The stdio command lines tenants may use, as a JSON array of `{"command": "/abs/path", "args": [...], "extraArgs": false | "<pattern>"}`: `command` must match exactly, `args` are pinned (a tenant\'s args must begin with exactly these), and `extraArgs` says whether up to 32 more arguments may follow, each matching the pattern as a whole. Example: `[{"command":"/usr/bin/node","args":["/opt/mcp/server.js","stdio"]}]`. The manager answers 422 for any other command line; the engine refuses to spawn one (reported failed in `/health`). Set it to the same value on both',
    default: 'none: no stdio MCP server may run',
  },
  MCP_STDIO_CWD_ROOT: {
    description:
      "Absolute directory a stdio server's `cwd` must be inside; the engine checks the real path (symlinks followed)",
    default: 'none: a stdio server may not set `cwd`',
  },
  MODEL_API_KEY_ENVS: {
    description:
      "Comma-separated environment variables an `LLM` agent's `model.apiKeyEnv` may name (the manager answers 422 for others, the engine will not read them). The platform's own variables (`DATABASE_*`, `PG*`, `SECRETS_KEY*`, `SESSION_SECRET*`, `ENGINE_*`, `AGENT_*`, `OPENAI_*`) can never be listed: the service refuses to start",
  },
} satisfies Record<string, EnvVarDoc>;
