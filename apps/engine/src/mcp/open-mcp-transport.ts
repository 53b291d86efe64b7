// Builds the MCP SDK client transport a server config asks for.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { TMcpServerConfig } from '@agentplane/contracts';
import type { Logger } from '@agentplane/server-kit';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { EgressPolicy } from '../egress/egress-policy.js';
import type { StdioLaunch } from './stdio-policy.js';
import { PolicedWebSocketTransport } from './websocket-transport.js';

function requireUrl(server: TMcpServerConfig): URL {
  // The contract already requires a url for every network transport; this only narrows the type.
  if (server.url === undefined) throw new Error(`MCP server "${server.name}" has no url`);
  return new URL(server.url);
}

function openStdioTransport(launch: StdioLaunch, logger: Logger): Transport {
  const transport = new StdioClientTransport({
    command: launch.command,
    args: launch.args,
    // The SDK adds a safe default environment (PATH, HOME…) under these values, never the engine's own.
    env: launch.env,
    ...(launch.cwd === undefined ? {} : { cwd: launch.cwd }),
    stderr: 'pipe',
  });
  // A stdio server's stderr is its log: keep it, line by line, instead of letting it reach our stdout.
  // With stderr 'pipe' the SDK hands out a PassThrough at once, before the process starts.
  const stderr = transport.stderr as Readable | null;
  if (stderr !== null) {
    createInterface({ input: stderr }).on('line', (line) => logger.info({ stderr: line }, 'mcp server output'));
  }
  return transport;
}

/**
 * Network transports connect only through `egress`, the engine's policy for tenant-chosen URLs. `launch`
 * is what checkStdioLaunch permitted; a stdio server without it is never spawned.
 */
export function openMcpTransport(
  server: TMcpServerConfig,
  logger: Logger,
  { egress, launch }: { egress: EgressPolicy; launch?: StdioLaunch | undefined },
): Transport {
  const { fetch } = egress;
  switch (server.transport) {
    case 'stdio':
      if (launch === undefined) throw new Error(`MCP server "${server.name}" was not checked for launch`);
      return openStdioTransport(launch, logger);
    case 'streamable_http':
      return new StreamableHTTPClientTransport(requireUrl(server), { fetch, requestInit: { headers: server.headers } });
    case 'sse':
      // requestInit headers go on the POSTs and, through the SDK's EventSource fetch, on the stream too.
      return new SSEClientTransport(requireUrl(server), { fetch, requestInit: { headers: server.headers } });
    case 'websocket':
      if (Object.keys(server.headers).length > 0) {
        logger.warn('headers are not sent on websocket MCP connections: the WebSocket API has no custom headers');
      }
      return new PolicedWebSocketTransport(requireUrl(server), egress.openWebSocket);
    case 'agent':
      // Opened per call, with that call's token (agent-tools.ts).
      throw new Error(`MCP server "${server.name}" calls an agent, which has no standing connection`);
  }
}
