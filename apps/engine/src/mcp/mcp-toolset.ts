// The MCP servers of one applied config: connected and listed once at apply time, called by runs,
// closed when the config is replaced or the engine stops. A server that fails is skipped and reported.
import { isToolPermitted, type TMcpServerConfig, type TToolPolicy } from '@agentplane/contracts';
import type { Logger } from '@agentplane/server-kit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AgentTool, AgentToolbox, ToolOutcome } from '../agents/agent-runtime.js';
import { EGRESS_ALLOW_HINT, type EgressPolicy, isEgressRefusal } from '../egress/egress-policy.js';
import { logFailure } from '../errors/log-failure.js';
import type { EngineMetrics } from '../metrics/engine-metrics.js';
import {
  AGENT_TOOL_PARAMETERS,
  type AgentCallSettings,
  callAgentTool,
  resolveAgentTool,
  type ToolCallContext,
} from './agent-tools.js';
import { describeToolResult } from './describe-tool-result.js';
import { openMcpTransport } from './open-mcp-transport.js';
import { checkStdioLaunch, StdioLaunchRefused, type StdioPolicy } from './stdio-policy.js';
import { createToolNamer } from './tool-names.js';

type ToolNamer = ReturnType<typeof createToolNamer>;

export type McpServerStatus = {
  name: string;
  status: 'connected' | 'failed';
  tools: number;
  /** Ours, never the server's words: those are logged under `errorId`. */
  error?: string;
  errorId?: string;
};

export type McpToolset = AgentToolbox & {
  /** A tool call made for a run: the calls to other agents need its id (drive-run.ts gives it). */
  call: (
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    context?: ToolCallContext,
  ) => Promise<ToolOutcome>;
  statuses: () => McpServerStatus[];
  close: () => Promise<void>;
};

const CLIENT_INFO = { name: 'agentplane-engine', version: '0.1.0' };

type Connection = {
  server: TMcpServerConfig;
  status: McpServerStatus;
  client?: Client;
  transport?: Transport;
  closing?: boolean;
};

type RoutedTool = AgentTool & {
  server: string;
  mcpName: string;
  timeoutSeconds: number;
  /** Why the tool cannot be called now, if it cannot. */
  unavailable: () => string | undefined;
  invoke: (
    args: Record<string, unknown>,
    signal: AbortSignal,
    context: ToolCallContext | undefined,
  ) => Promise<unknown>;
};

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

async function listAllTools(client: Client, timeout: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

async function closeConnection(connection: Connection, logger: Logger): Promise<void> {
  const { client, transport, server } = connection;
  connection.closing = true;
  try {
    if (server.terminateOnClose && transport instanceof StreamableHTTPClientTransport) {
      await transport.terminateSession();
    }
  } catch (error) {
    logger.warn({ err: error, mcp_server: server.name }, 'could not end the MCP session');
  }
  await (client ?? transport)?.close().catch((error: unknown) => {
    logger.warn({ err: error, mcp_server: server.name }, 'could not close the MCP connection');
  });
}

export type McpToolsetOptions = {
  logger: Logger;
  stdio: StdioPolicy;
  egress: EgressPolicy;
  /** Times each call that reaches its server (metrics/engine-metrics.ts). */
  toolCalls?: EngineMetrics['toolCalls'];
  /** The agent's tool policy: a tool it denies is neither listed nor called. */
  policy?: TToolPolicy | undefined;
  /** Counts the calls the policy refuses. */
  toolRefusals?: EngineMetrics['toolRefusals'];
  /** The agents the config calls as tools, and how to get their tokens. */
  agentCalls?: Omit<AgentCallSettings, 'egress'> | undefined;
};

// timeoutSeconds bounds each tool call. Connecting spawns a process or opens a session and lists every
// tool, which for an npx- or uvx-started server on a cold or busy machine takes seconds: a short call
// timeout must not stop such a server from starting at all. A refused connection still fails at once.
const MIN_CONNECT_TIMEOUT_MS = 30_000;

async function connectServer(
  server: TMcpServerConfig,
  { logger, stdio, egress }: McpToolsetOptions,
): Promise<{ connection: Connection; tools: Tool[] }> {
  const log = logger.child({ mcp_server: server.name });
  const connection: Connection = { server, status: { name: server.name, status: 'connected', tools: 0 } };
  const timeout = Math.max(server.timeoutSeconds * 1000, MIN_CONNECT_TIMEOUT_MS);
  try {
    const launch = server.transport === 'stdio' ? await checkStdioLaunch(server, stdio) : undefined;
    connection.transport = openMcpTransport(server, log, { egress, launch });
    const client = new Client(CLIENT_INFO);
    connection.client = client;
    const tools = await withTimeout(
      client.connect(connection.transport, { timeout }).then(() => listAllTools(client, timeout)),
      timeout,
      'connecting',
    );
    client.onerror = (error) => log.warn({ err: error }, 'MCP connection error');
    client.onclose = () => {
      if (connection.closing) return;
      connection.status = { ...connection.status, status: 'failed', error: 'The connection was closed' };
      log.warn('MCP connection closed by the server');
    };
    connection.status.tools = tools.length;
    log.info({ tools: tools.length }, 'MCP server connected');
    return { connection, tools };
  } catch (error) {
    const refusedLaunch = error instanceof StdioLaunchRefused;
    const errorId = refusedLaunch
      ? logFailure(log, 'error', error, 'MCP server refused by the operator policy')
      : logFailure(log, 'warn', error, 'MCP server skipped: it could not be reached');
    // A refused launch is our own sentence, naming the operator's setting; a server's or the network's
    // words stay in the log.
    const reason = refusedLaunch
      ? error.message
      : isEgressRefusal(error)
        ? `Its address is refused by the engine's egress policy; ${EGRESS_ALLOW_HINT}`
        : 'It could not be connected';
    connection.status = { name: server.name, status: 'failed', tools: 0, error: reason, errorId };
    await closeConnection(connection, log);
    return { connection, tools: [] };
  }
}

function describeCallFailure(name: string, timeoutSeconds: number, error: unknown): string {
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return `The tool "${name}" timed out after ${timeoutSeconds} s.`;
  }
  return `The tool "${name}" failed: ${error instanceof Error ? error.message : String(error)}`;
}

/** The tools of the connected servers, each called through its server's session. */
function routeServerTools(connected: { connection: Connection; tools: Tool[] }[], nameTool: ToolNamer): RoutedTool[] {
  return connected.flatMap(({ connection, tools }) =>
    tools.map((tool) => ({
      name: nameTool(connection.server.name, tool.name),
      description: tool.description ?? tool.title ?? tool.name,
      parameters: tool.inputSchema,
      server: connection.server.name,
      mcpName: tool.name,
      timeoutSeconds: connection.server.timeoutSeconds,
      unavailable: () =>
        connection.client === undefined || connection.status.status !== 'connected'
          ? 'its MCP server is not connected'
          : undefined,
      invoke: (args: Record<string, unknown>, signal: AbortSignal) =>
        (connection.client as Client).callTool({ name: tool.name, arguments: args }, undefined, {
          signal,
          timeout: connection.server.timeoutSeconds * 1000,
        }),
    })),
  );
}

/** The servers of transport "agent": one tool each, or a failed status saying why not. */
function routeAgentTools(servers: readonly TMcpServerConfig[], settings: AgentCallSettings, nameTool: ToolNamer) {
  const statuses: McpServerStatus[] = [];
  const routes: RoutedTool[] = [];
  for (const server of servers) {
    const resolved = resolveAgentTool(server, settings);
    if ('unavailable' in resolved) {
      statuses.push({ name: server.name, status: 'failed', tools: 0, error: resolved.unavailable });
      continue;
    }
    const { tool } = resolved;
    statuses.push({ name: server.name, status: 'connected', tools: 1 });
    routes.push({
      name: nameTool(server.name, tool.toolName),
      description: tool.description,
      parameters: AGENT_TOOL_PARAMETERS,
      server: server.name,
      mcpName: tool.toolName,
      timeoutSeconds: server.timeoutSeconds,
      unavailable: () => undefined,
      invoke: (args, signal, context) => {
        if (context === undefined) throw new Error('An agent can only be called from a run');
        return callAgentTool(tool, args, { signal, context, settings });
      },
    });
  }
  return { statuses, routes };
}

export async function connectMcpToolset(
  servers: readonly TMcpServerConfig[],
  options: McpToolsetOptions,
): Promise<McpToolset> {
  const { logger } = options;
  const isAgent = (server: TMcpServerConfig) => server.transport === 'agent';
  const connected = await Promise.all(
    servers.filter((server) => !isAgent(server)).map((server) => connectServer(server, options)),
  );
  const nameTool = createToolNamer();
  const agentTools = routeAgentTools(
    servers.filter(isAgent),
    { calls: null, tokens: undefined, ...options.agentCalls, egress: options.egress },
    nameTool,
  );
  const routes = new Map<string, RoutedTool>(
    [...routeServerTools(connected, nameTool), ...agentTools.routes].map((route) => [route.name, route]),
  );
  const permitted = (name: string) => isToolPermitted(options.policy, name);
  const tools: AgentTool[] = [...routes.values()]
    .filter(({ name }) => permitted(name))
    .map(({ name, description, parameters, server }) => ({ name, description, parameters, server }));

  const call = async (
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    context?: ToolCallContext,
  ): Promise<ToolOutcome> => {
    const route = routes.get(name);
    if (route === undefined) return { text: `There is no tool named "${name}".`, isError: true };
    const { server, mcpName } = route;
    // Never offered, so only a model that makes the name up, or code that calls by name, gets here.
    if (!permitted(name)) {
      options.toolRefusals?.inc({ mcp_server: server, tool: mcpName });
      logger.warn({ tool: name }, "MCP tool call refused by the agent's tool policy");
      return { text: `The tool "${name}" is not permitted for this agent.`, isError: true };
    }
    const unavailable = route.unavailable();
    if (unavailable !== undefined) return { text: `The tool "${name}" is unavailable: ${unavailable}.`, isError: true };
    // Labelled by the tool's name on its server, as the server lists it: bounded by the agent's config.
    const timed = options.toolCalls?.startTimer({ mcp_server: server, tool: mcpName });
    try {
      const result = (await route.invoke(args, signal, context)) as Parameters<typeof describeToolResult>[0] & {
        isError?: unknown;
      };
      timed?.({ outcome: result.isError === true ? 'error' : 'ok' });
      return { text: describeToolResult(result), isError: result.isError === true };
    } catch (error) {
      timed?.({ outcome: 'error' });
      if (signal.aborted) throw error;
      logger.warn({ err: error, tool: name }, 'MCP tool call failed');
      return { text: describeCallFailure(name, route.timeoutSeconds, error), isError: true };
    }
  };

  return {
    tools,
    call,
    statuses: () => [...connected.map(({ connection }) => ({ ...connection.status })), ...agentTools.statuses],
    close: async () => {
      await Promise.all(connected.map(({ connection }) => closeConnection(connection, logger)));
    },
  };
}
