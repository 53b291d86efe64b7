// The spec's "MCPServer" object. Keys keep the spec's camelCase exactly.
import { z } from 'zod';
import { findJsonProblem } from '../common/json-checks.js';
import {
  IDENTIFIER_MAX_LENGTH,
  MCP_ARG_MAX_LENGTH,
  MCP_ARGS_MAX_ITEMS,
  MCP_MAP_KEY_MAX_LENGTH,
  MCP_MAP_MAX_ENTRIES,
  PATH_MAX_LENGTH,
  SESSION_KWARGS_MAX_BYTES,
  SESSION_KWARGS_MAX_DEPTH,
} from '../common/limits.js';
import { EGRESS_RULE, ZNonBlankString, ZUuid } from '../common/primitives.js';
import { makeSecretHeaders } from '../secrets/secret-headers.js';
import { SECRET_FIELD_RULE } from '../secrets/secret-mask.js';
import { makeSecretString } from '../secrets/secret-string.js';
import { makeSecretQueryUrl, SECRET_QUERY_RULE } from '../secrets/secret-url.js';
import { describeRefusedEnvName } from './launch-variables.js';

/** `agent`: another agent of the workspace, called through its own MCP endpoint (agent_id names it). */
export const MCP_TRANSPORTS = ['streamable_http', 'sse', 'stdio', 'websocket', 'agent'] as const;
export type TMcpTransport = (typeof MCP_TRANSPORTS)[number];

export const ENCODING_ERROR_HANDLERS = ['strict', 'ignore', 'replace'] as const;
export type TEncodingErrorHandler = (typeof ENCODING_ERROR_HANDLERS)[number];

// A day: anything longer is a mistake, and unbounded values overflow timers (setTimeout caps near 24.8 days).
export const MCP_TIMEOUT_SECONDS_MAX = 86_400;

// z.number() already refuses NaN and ±Infinity.
const ZTimeoutSeconds = z.number().positive().max(MCP_TIMEOUT_SECONDS_MAX);

const URL_PROTOCOLS_BY_TRANSPORT: Record<Exclude<TMcpTransport, 'stdio' | 'agent'>, readonly string[]> = {
  streamable_http: ['http:', 'https:'],
  sse: ['http:', 'https:'],
  websocket: ['ws:', 'wss:'],
};

function readProtocol(url: string): string | undefined {
  try {
    return new URL(url).protocol;
  } catch {
    return undefined;
  }
}

// zod skips a key `__proto__` without a word; the manager refuses it in any request body before this runs.
const ZMapKey = z.string().max(MCP_MAP_KEY_MAX_LENGTH);

/** A string map of at most MCP_MAP_MAX_ENTRIES entries. */
function makeStringMap(key: z.ZodType<string>, value: z.ZodType<string>) {
  return z
    .record(key, value)
    .refine((map) => Object.keys(map).length <= MCP_MAP_MAX_ENTRIES, {
      message: `Must have at most ${MCP_MAP_MAX_ENTRIES} entries`,
    })
    .meta({ maxProperties: MCP_MAP_MAX_ENTRIES });
}

const ZHeaders = makeSecretHeaders(MCP_MAP_MAX_ENTRIES, 'Headers sent to the server.');

const ZStdioEnv = makeStringMap(ZMapKey, makeSecretString(z.string()))
  .superRefine((env, ctx) => {
    for (const name of Object.keys(env)) {
      const refused = describeRefusedEnvName(name);
      if (refused !== undefined) ctx.addIssue({ code: 'custom', path: [name], message: refused });
    }
  })
  .default(() => ({}))
  .meta({
    description: `Environment of a stdio server. Loader and interpreter variables (PATH, NODE_OPTIONS, LD_PRELOAD, PYTHONPATH…) are refused. Each value: ${SECRET_FIELD_RULE}`,
  });

const ZStdioCwd = z
  .string()
  .max(PATH_MAX_LENGTH)
  .refine(
    (cwd) => cwd.startsWith('/') && !cwd.split('/').includes('..'),
    'must be an absolute path without ".." segments',
  )
  .meta({
    description:
      "Working directory of a stdio server: absolute, and inside the operator's MCP_STDIO_CWD_ROOT (refused when that is unset)",
  });

/** Bounded in depth first, so that measuring its size cannot recurse without end. */
const ZSessionKwargs = z
  .record(ZMapKey, z.unknown())
  .superRefine((kwargs, ctx) => {
    const problem = findJsonProblem(kwargs, { maxDepth: SESSION_KWARGS_MAX_DEPTH });
    if (problem !== undefined) {
      ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
      return;
    }
    const bytes = new TextEncoder().encode(JSON.stringify(kwargs)).length;
    if (bytes > SESSION_KWARGS_MAX_BYTES) {
      ctx.addIssue({ code: 'custom', message: `Must be at most ${SESSION_KWARGS_MAX_BYTES} bytes as JSON (${bytes})` });
    }
  })
  .default(() => ({}))
  .meta({
    description: `Additional session parameters: at most ${SESSION_KWARGS_MAX_BYTES} bytes as JSON, nested at most ${SESSION_KWARGS_MAX_DEPTH} deep`,
  });

const ZMcpServerFields = z.strictObject({
  name: ZNonBlankString.max(IDENTIFIER_MAX_LENGTH),
  transport: z.enum(MCP_TRANSPORTS).default('streamable_http'),
  // Checked against the transport below, which also reports an empty url once rather than twice.
  url: makeSecretQueryUrl(z.string())
    .optional()
    .describe(
      `The server's URL (streamable_http, sse: http(s); websocket: ws(s)). ${SECRET_QUERY_RULE} ${EGRESS_RULE}`,
    ),
  command: ZNonBlankString.max(PATH_MAX_LENGTH).optional().meta({
    description:
      'Executable of a stdio server. The command line (command and args) must be one the operator permits in MCP_STDIO_COMMANDS; none is by default',
  }),
  args: z
    .array(z.string().max(MCP_ARG_MAX_LENGTH))
    .max(MCP_ARGS_MAX_ITEMS)
    .default(() => [])
    .meta({
      description:
        'Arguments of a stdio server: the ones an MCP_STDIO_COMMANDS entry pins, then only the extra arguments it allows',
    }),
  headers: ZHeaders,
  env: ZStdioEnv,
  cwd: ZStdioCwd.optional(),
  encoding: z.string().min(1).max(IDENTIFIER_MAX_LENGTH).default('utf-8'),
  encodingErrorHandler: z.enum(ENCODING_ERROR_HANDLERS).default('strict'),
  timeoutSeconds: ZTimeoutSeconds.default(30),
  sseReadTimeoutSeconds: ZTimeoutSeconds.default(300),
  terminateOnClose: z.boolean().default(true),
  sessionKwargs: ZSessionKwargs,
  agent_id: ZUuid.optional().meta({
    description:
      'For transport "agent": the agent of this workspace to call as a tool. The platform derives its address and credentials',
  }),
});

export const ZMcpServerConfig = ZMcpServerFields.superRefine((server, ctx) => {
  if (server.transport === 'agent') {
    refuseTenantReachForAgent(server, ctx);
    return;
  }
  if (server.agent_id !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['agent_id'], message: 'agent_id is only for transport "agent"' });
  }
  if (server.transport === 'stdio') {
    // A url next to stdio is accepted and ignored rather than rejected: switching a server's
    // transport in a form leaves the old url behind, and refusing that edit helps nobody.
    if (server.command === undefined) {
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'command is required when transport is "stdio"' });
    }
    return;
  }
  const allowed = URL_PROTOCOLS_BY_TRANSPORT[server.transport];
  if (server.url === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['url'],
      message: `url is required when transport is "${server.transport}"`,
    });
    return;
  }
  const protocol = readProtocol(server.url);
  if (protocol === undefined) {
    ctx.addIssue({ code: 'custom', path: ['url'], message: 'url must be an absolute URL' });
  } else if (!allowed.includes(protocol)) {
    ctx.addIssue({
      code: 'custom',
      path: ['url'],
      message: `url must use ${allowed.map((p) => p.slice(0, -1)).join(' or ')} when transport is "${server.transport}"`,
    });
  }
}).meta({ id: 'MCPServer', description: 'MCP server configuration' });
export type TMcpServerConfig = z.infer<typeof ZMcpServerConfig>;

/**
 * An agent is reached where the platform serves it, with a token the manager mints per call: nothing a
 * tenant could point elsewhere or send along (a url, a command, headers, an environment) is accepted.
 */
function refuseTenantReachForAgent(server: z.output<typeof ZMcpServerFields>, ctx: z.RefinementCtx): void {
  if (server.agent_id === undefined) {
    ctx.addIssue({ code: 'custom', path: ['agent_id'], message: 'agent_id is required when transport is "agent"' });
  }
  const set = {
    url: server.url !== undefined,
    command: server.command !== undefined,
    cwd: server.cwd !== undefined,
    args: server.args.length > 0,
    headers: Object.keys(server.headers).length > 0,
    env: Object.keys(server.env).length > 0,
  };
  for (const [field, present] of Object.entries(set)) {
    if (present) {
      ctx.addIssue({
        code: 'custom',
        path: [field],
        message: `${field} cannot be set when transport is "agent": the platform reaches the agent itself`,
      });
    }
  }
}
export type TMcpServerConfigInput = z.input<typeof ZMcpServerConfig>;
