// Bodies and response of /api/v1/mcp-servers.
import type { z } from 'zod';
import { makeResourceBody, makeResourceResponse } from '../common/envelope.js';
import { ZMcpServerConfig } from './mcp-server-config.js';

export const MCP_SERVER_KEY = 'mcp_server';

const MCP_SERVER_EXAMPLE = {
  name: 'Company tools',
  mcp_server: {
    name: 'tools',
    transport: 'streamable_http',
    url: 'https://tools.example.com/mcp',
    headers: { Authorization: 'Bearer …' },
    timeoutSeconds: 30,
  },
};

export const ZMcpServerCreate = makeResourceBody(MCP_SERVER_KEY, ZMcpServerConfig).meta({
  id: 'McpServerCreate',
  examples: [MCP_SERVER_EXAMPLE],
});
export type TMcpServerCreate = z.infer<typeof ZMcpServerCreate>;
export type TMcpServerCreateInput = z.input<typeof ZMcpServerCreate>;

// PATCH is a full replacement, so the update body has the create body's shape.
export const ZMcpServerUpdate = makeResourceBody(MCP_SERVER_KEY, ZMcpServerConfig).meta({
  id: 'McpServerUpdate',
  examples: [MCP_SERVER_EXAMPLE],
});
export type TMcpServerUpdate = z.infer<typeof ZMcpServerUpdate>;

export const ZMcpServer = makeResourceResponse(MCP_SERVER_KEY, ZMcpServerConfig).meta({
  id: 'McpServerResource',
  description: 'A managed MCP server',
});
export type TMcpServer = z.infer<typeof ZMcpServer>;
