import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { formatZodIssues } from '../common/format-zod-issues.js';
import type { TMcpServer, TMcpServerCreate } from './mcp-server.js';
import { ZMcpServer, ZMcpServerCreate, ZMcpServerUpdate } from './mcp-server.js';

// True only when A and B are the same type, so an envelope that degraded to any/unknown fails typecheck.
type IsExact<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const minimalBody = { name: 'Everything', mcp_server: { name: 'everything', url: 'http://127.0.0.1:3001/mcp' } };

function rejectedPaths(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input);
  return result.success ? [] : formatZodIssues(result.error).map((issue) => issue.path);
}

describe.each([
  ['ZMcpServerCreate', ZMcpServerCreate],
  ['ZMcpServerUpdate', ZMcpServerUpdate],
])('%s', (_label, schema) => {
  it('applies the MCPServer defaults to a minimal body', () => {
    expect(schema.parse(minimalBody)).toStrictEqual({
      name: 'Everything',
      mcp_server: {
        name: 'everything',
        url: 'http://127.0.0.1:3001/mcp',
        transport: 'streamable_http',
        args: [],
        headers: {},
        env: {},
        encoding: 'utf-8',
        encodingErrorHandler: 'strict',
        timeoutSeconds: 30,
        sseReadTimeoutSeconds: 300,
        terminateOnClose: true,
        sessionKwargs: {},
      },
    });
  });

  it('requires name and mcp_server', () => {
    expect(rejectedPaths(schema, {}).sort()).toEqual(['mcp_server', 'name']);
  });

  it('rejects an unknown top-level field', () => {
    expect(rejectedPaths(schema, { ...minimalBody, transport: 'sse' })).toEqual(['transport']);
  });

  it('rejects an unknown field inside mcp_server by its full path', () => {
    expect(rejectedPaths(schema, { ...minimalBody, mcp_server: { ...minimalBody.mcp_server, retries: 3 } })).toEqual([
      'mcp_server.retries',
    ]);
  });

  it('points transport rules at mcp_server.url and mcp_server.command', () => {
    expect(rejectedPaths(schema, { name: 'x', mcp_server: { name: 'x' } })).toEqual(['mcp_server.url']);
    expect(rejectedPaths(schema, { name: 'x', mcp_server: { name: 'x', transport: 'stdio' } })).toEqual([
      'mcp_server.command',
    ]);
  });

  it('points at a bad arg by index', () => {
    expect(rejectedPaths(schema, { ...minimalBody, mcp_server: { ...minimalBody.mcp_server, args: [null] } })).toEqual([
      'mcp_server.args[0]',
    ]);
  });
});

describe('inferred types', () => {
  it('keep the typed MCP server object under its key, with defaults applied', () => {
    const transportIsTyped: IsExact<
      TMcpServerCreate['mcp_server']['transport'],
      'streamable_http' | 'sse' | 'stdio' | 'websocket' | 'agent'
    > = true;
    const argsAlwaysPresent: IsExact<TMcpServer['mcp_server']['args'], string[]> = true;
    expect([transportIsTyped, argsAlwaysPresent]).toEqual([true, true]);
  });
});

describe('ZMcpServer', () => {
  const resource = {
    id: '0b3c5a9e-2f4d-4c1b-9a7e-3d2f1e0c9b8a',
    name: 'Everything',
    mcp_server: ZMcpServerCreate.parse(minimalBody).mcp_server,
    created_at: '2025-01-02T03:04:05.678Z',
    updated_at: '2025-01-02T03:04:05.678Z',
    agent_count: 0,
  };

  it('accepts a complete resource', () => {
    expect(ZMcpServer.parse(resource)).toStrictEqual(resource);
  });

  it('rejects a fractional agent_count and a date-only updated_at', () => {
    expect(rejectedPaths(ZMcpServer, { ...resource, agent_count: 0.5, updated_at: '2025-01-02' }).sort()).toEqual([
      'agent_count',
      'updated_at',
    ]);
  });

  it('carries the OpenAPI ids', () => {
    expect(z.globalRegistry.get(ZMcpServer)?.id).toBe('McpServerResource');
    expect(z.globalRegistry.get(ZMcpServerCreate)?.id).toBe('McpServerCreate');
    expect(z.globalRegistry.get(ZMcpServerUpdate)?.id).toBe('McpServerUpdate');
  });
});
