// {agent base}/mcp: the agent as an MCP server over streamable HTTP (@modelcontextprotocol/sdk), with
// one tool, the agent itself (agent-tool.ts), behind the same bearer tokens as /agent/run.
//
// Stateless: a server and a transport per HTTP request, no session id. The replicas of a pool share
// nothing in memory, and a session's next request may reach any of them; what a call must find again
// (its run, to cancel it) is in the database (mcp-call-cancels.ts). A POST answers JSON-RPC on an SSE
// stream, so progress notifications go out while the run streams; GET (a standalone stream for
// server-initiated messages) and DELETE (ending a session) have nothing to serve: 405.
//
// The low-level `Server` of the same SDK rather than `McpServer`: McpServer answers arguments that fail
// the input schema with a tool result, where this endpoint answers them with JSON-RPC invalid params.
import type { Logger } from '@agentplane/server-kit';
import { AppError } from '@agentplane/server-kit';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { logFailure, withErrorId } from '../errors/log-failure.js';
import type { EngineApi, EngineRouteSpec } from '../http/engine-api.js';
import type { RunStore } from '../runs/recorded-run.js';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';
import { getSnapshot, type SnapshotSource } from '../snapshot/use-snapshot.js';
import { callerOf, type ThreadCaller } from '../threads/thread-scope.js';
import { describeAgentTool, parseAgentToolInput } from './agent-tool.js';
import { cancelMcpCall } from './mcp-call-cancels.js';
import { refuseUnservableMcpRequest } from './mcp-request-checks.js';
import { MCP_PATH, PROTECTED_RESOURCE_PATH, sendResourceMetadata } from './protected-resource.js';
import { runToolCall } from './tool-call-run.js';

const ZJsonRpcBody = z
  .union([z.looseObject({ jsonrpc: z.literal('2.0') }), z.array(z.looseObject({ jsonrpc: z.literal('2.0') }))])
  .meta({ id: 'McpJsonRpcMessage', description: 'A JSON-RPC 2.0 message of the MCP protocol, or a batch' });

const ZResourceMetadata = z
  .object({
    resource: z.string(),
    authorization_servers: z.array(z.string()),
    bearer_methods_supported: z.array(z.string()),
    resource_name: z.string().optional(),
  })
  .meta({ id: 'ProtectedResourceMetadata' });

const METADATA_RESPONSE = {
  200: {
    description: 'RFC 9728 metadata: the MCP URL and the issuers whose tokens it accepts',
    schema: ZResourceMetadata,
  },
};
const NO_STREAM = { 405: 'Stateless: no standalone stream and no session to end; POST only' };

export const MCP_ROUTES = {
  mcp: {
    method: 'post',
    path: MCP_PATH,
    operationId: 'mcp',
    summary: 'The agent as an MCP server (streamable HTTP, stateless): one tool that runs the agent',
    tag: 'mcp',
    access: { kind: 'bearer', body: 'json', challenge: 'mcp' },
    handlerBody: { contentType: 'application/json', schema: ZJsonRpcBody },
    responses: {
      200: {
        description: 'The JSON-RPC response, with the progress notifications before it, as server-sent events',
        contentType: 'text/event-stream',
        schema: z.string(),
      },
      202: { description: 'A notification or a response, accepted' },
    },
    problems: {
      400: 'An MCP-Protocol-Version the server does not speak, a batch of more than 100 messages, or one with an initialize',
      406: 'Accept does not name both application/json and text/event-stream',
      413: 'The body is larger than ENGINE_RUN_INPUT_MAX_BYTES',
      415: 'A body that is not application/json',
      422: 'Not JSON-RPC 2.0, or a body holding what cannot be stored (NUL, lone surrogates, `__proto__`)',
    },
  },
  mcpStream: {
    method: 'get',
    path: MCP_PATH,
    operationId: 'mcpStream',
    summary: 'Not served: the MCP endpoint is stateless',
    tag: 'mcp',
    access: { kind: 'public' },
    responses: {},
    problems: NO_STREAM,
  },
  mcpEndSession: {
    method: 'delete',
    path: MCP_PATH,
    operationId: 'mcpEndSession',
    summary: 'Not served: the MCP endpoint has no sessions',
    tag: 'mcp',
    access: { kind: 'public' },
    responses: {},
    problems: NO_STREAM,
  },
  resourceMetadata: {
    method: 'get',
    path: PROTECTED_RESOURCE_PATH,
    operationId: 'getProtectedResourceMetadata',
    summary: "The MCP endpoint's OAuth protected resource metadata (RFC 9728)",
    tag: 'mcp',
    access: { kind: 'public' },
    responses: METADATA_RESPONSE,
  },
  mcpResourceMetadata: {
    method: 'get',
    path: `${PROTECTED_RESOURCE_PATH}${MCP_PATH}`,
    operationId: 'getMcpProtectedResourceMetadata',
    summary: 'The same metadata at the path-inserted URL of RFC 9728 §3.1 (on a pool, at the engine root instead)',
    tag: 'mcp',
    access: { kind: 'public' },
    responses: METADATA_RESPONSE,
  },
} satisfies Record<string, EngineRouteSpec>;

type McpContext = {
  store: RunStore | undefined;
  snapshot: AgentSnapshot;
  caller: ThreadCaller | undefined;
  /** Aborts when the HTTP request ends before its answer: the client left. */
  gone: AbortSignal;
  log: Logger;
};

function createAgentMcpServer(context: McpContext): Server {
  const { store, snapshot, caller, log } = context;
  const tool = describeAgentTool(snapshot.config);
  const server = new Server(
    { name: tool.name, title: snapshot.config.agent.name, version: String(snapshot.version) },
    { capabilities: { tools: { listChanged: false } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [tool] }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (request.params.name !== tool.name) {
      throw new McpError(ErrorCode.InvalidParams, `No such tool; this server has one: "${tool.name}".`);
    }
    const args = parseAgentToolInput(request.params.arguments);
    const progressToken = request.params._meta?.progressToken;
    let progress = 0;
    try {
      return await runToolCall({
        store,
        snapshot,
        caller,
        args,
        requestId: extra.requestId,
        signal: AbortSignal.any([extra.signal, context.gone]),
        log: log.child({ mcp_request_id: extra.requestId }),
        progress:
          progressToken === undefined
            ? undefined
            : (message) =>
                extra.sendNotification({
                  method: 'notifications/progress',
                  params: { progressToken, progress: ++progress, message },
                }),
      });
    } catch (error) {
      // Never a stack or a database's words to the client: an id the log has.
      const errorId = logFailure(log, 'error', error, 'an MCP tool call failed');
      throw new McpError(ErrorCode.InternalError, withErrorId('The tool call failed.', errorId));
    }
  });
  // A cancel comes on a request of its own, maybe to another replica: it finds the run in the database.
  server.setNotificationHandler(CancelledNotificationSchema, async ({ params: { requestId } }) => {
    if (store === undefined || requestId === undefined) return;
    await cancelMcpCall(store.pool, store.agentId, caller, requestId).catch((error: unknown) =>
      log.warn({ err: error, mcp_request_id: requestId }, 'could not cancel the run of a cancelled MCP call'),
    );
  });
  return server;
}

async function serveMcp(req: Request, res: Response, store: RunStore | undefined): Promise<void> {
  refuseUnservableMcpRequest(req);
  const gone = new AbortController();
  const server = createAgentMcpServer({
    store,
    snapshot: getSnapshot(res),
    caller: callerOf(res.locals.claims),
    gone: gone.signal,
    log: req.log,
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    gone.abort();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
}

function refuseWithoutSession(): never {
  throw new AppError('method_not_allowed', 'This MCP endpoint is stateless: POST only.', {
    headers: { Allow: 'POST' },
  });
}

export function addMcpRoutes(
  api: EngineApi,
  options: { store: RunStore | undefined; source: SnapshotSource; publicOrigin: string | undefined },
): void {
  const { store, source, publicOrigin } = options;
  api.add(MCP_ROUTES.mcp, (_input, req, res) => serveMcp(req, res, store));
  api.add(MCP_ROUTES.mcpStream, refuseWithoutSession);
  api.add(MCP_ROUTES.mcpEndSession, refuseWithoutSession);
  const metadata = (_input: unknown, req: Request, res: Response) =>
    sendResourceMetadata(req, res, { source, base: req.baseUrl, publicOrigin });
  api.add(MCP_ROUTES.resourceMetadata, metadata);
  api.add(MCP_ROUTES.mcpResourceMetadata, metadata);
}
