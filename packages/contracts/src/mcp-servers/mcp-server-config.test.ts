import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { formatIssuePath, formatZodIssues } from '../common/format-zod-issues.js';
import {
  IDENTIFIER_MAX_LENGTH,
  MCP_ARG_MAX_LENGTH,
  MCP_ARGS_MAX_ITEMS,
  MCP_MAP_KEY_MAX_LENGTH,
  MCP_MAP_MAX_ENTRIES,
  PATH_MAX_LENGTH,
  SECRET_MAX_LENGTH,
  SESSION_KWARGS_MAX_BYTES,
  SESSION_KWARGS_MAX_DEPTH,
  URL_MAX_LENGTH,
} from '../common/limits.js';
import { ZMcpServerConfig } from './mcp-server-config.js';

const minimalHttp = { name: 'everything', url: 'http://127.0.0.1:3001/mcp' };

const DEFAULTS = {
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
};

function rejected(input: unknown) {
  const result = ZMcpServerConfig.safeParse(input);
  return result.success ? [] : formatZodIssues(result.error);
}

function rejectedPaths(input: unknown): string[] {
  return rejected(input).map((issue) => issue.path);
}

describe('ZMcpServerConfig defaults', () => {
  it('fills every default into a minimal streamable_http server', () => {
    expect(ZMcpServerConfig.parse(minimalHttp)).toStrictEqual({ ...minimalHttp, ...DEFAULTS });
  });

  it('fills the defaults into a minimal stdio server', () => {
    const stdio = { name: 'local', transport: 'stdio', command: 'npx' };
    expect(ZMcpServerConfig.parse(stdio)).toStrictEqual({ ...DEFAULTS, ...stdio });
  });

  it('does not share default containers between parses', () => {
    const first = ZMcpServerConfig.parse(minimalHttp);
    first.args.push('mutated');
    first.headers.mutated = 'yes';
    const second = ZMcpServerConfig.parse(minimalHttp);
    expect(second.args).toEqual([]);
    expect(second.headers).toEqual({});
  });

  it('keeps every field given explicitly', () => {
    const full = {
      name: 'full',
      transport: 'stdio',
      command: 'node',
      args: ['server.js', '--port', '0'],
      headers: { 'X-Api-Key': 'k' },
      env: { DEBUG: '1' },
      cwd: '/srv/mcp',
      encoding: 'latin1',
      encodingErrorHandler: 'replace',
      timeoutSeconds: 2.5,
      sseReadTimeoutSeconds: 0.5,
      terminateOnClose: false,
      sessionKwargs: { read_timeout: 3, nested: { a: [1] } },
    };
    expect(ZMcpServerConfig.parse(full)).toStrictEqual(full);
  });
});

describe('ZMcpServerConfig field rules', () => {
  it('requires a non-blank name', () => {
    expect(rejectedPaths({ url: minimalHttp.url })).toEqual(['name']);
    expect(rejectedPaths({ ...minimalHttp, name: '' })).toEqual(['name']);
    expect(rejectedPaths({ ...minimalHttp, name: '  ' })).toEqual(['name']);
  });

  it.each(['sse', 'websocket', 'stdio', 'streamable_http'])('accepts transport %s', (transport) => {
    const url = transport === 'websocket' ? 'ws://127.0.0.1:3001/' : minimalHttp.url;
    expect(ZMcpServerConfig.safeParse({ ...minimalHttp, url, transport, command: 'npx' }).success).toBe(true);
  });

  it.each(['http', 'STDIO', 'streamable-http', ''])('rejects transport %j', (transport) => {
    expect(rejectedPaths({ ...minimalHttp, transport })).toEqual(['transport']);
  });

  it.each(['strict', 'ignore', 'replace'])('accepts encodingErrorHandler %s', (handler) => {
    expect(ZMcpServerConfig.parse({ ...minimalHttp, encodingErrorHandler: handler }).encodingErrorHandler).toBe(
      handler,
    );
  });

  it('rejects an unknown encodingErrorHandler', () => {
    expect(rejectedPaths({ ...minimalHttp, encodingErrorHandler: 'surrogateescape' })).toEqual([
      'encodingErrorHandler',
    ]);
  });

  it.each(['timeoutSeconds', 'sseReadTimeoutSeconds'])('accepts a fractional %s', (field) => {
    expect(ZMcpServerConfig.parse({ ...minimalHttp, [field]: 0.25 })[field as 'timeoutSeconds']).toBe(0.25);
  });

  it.each([
    ['timeoutSeconds', 0],
    ['timeoutSeconds', -1],
    ['timeoutSeconds', Number.NaN],
    ['timeoutSeconds', Number.POSITIVE_INFINITY],
    ['timeoutSeconds', 86_401],
    ['timeoutSeconds', '30'],
    ['sseReadTimeoutSeconds', 0],
    ['sseReadTimeoutSeconds', -0.5],
    ['sseReadTimeoutSeconds', Number.NaN],
    ['sseReadTimeoutSeconds', 86_401],
  ])('rejects %s = %p', (field, value) => {
    expect(rejectedPaths({ ...minimalHttp, [field]: value })).toEqual([field]);
  });

  it('accepts the one-day timeout cap', () => {
    expect(ZMcpServerConfig.parse({ ...minimalHttp, timeoutSeconds: 86_400 }).timeoutSeconds).toBe(86_400);
  });

  it('reports a bad arg by its index', () => {
    expect(rejectedPaths({ ...minimalHttp, args: ['ok', 1] })).toEqual(['args[1]']);
  });

  it('reports a bad header value by its quoted name', () => {
    expect(rejectedPaths({ ...minimalHttp, headers: { 'X-Api-Key': 1 } })).toEqual(['headers["X-Api-Key"]']);
  });

  it('requires env values to be strings', () => {
    expect(rejectedPaths({ ...minimalHttp, env: { PORT: 3000 } })).toEqual(['env.PORT']);
  });

  it('rejects a non-boolean terminateOnClose and a non-object sessionKwargs', () => {
    expect(rejectedPaths({ ...minimalHttp, terminateOnClose: 'false', sessionKwargs: [] }).sort()).toEqual([
      'sessionKwargs',
      'terminateOnClose',
    ]);
  });

  it('rejects empty encoding and cwd', () => {
    expect(rejectedPaths({ ...minimalHttp, encoding: '', cwd: '' }).sort()).toEqual(['cwd', 'encoding']);
  });

  it('rejects unknown fields, including snake_case spellings of known ones', () => {
    expect(rejectedPaths({ ...minimalHttp, timeout_seconds: 5 })).toEqual(['timeout_seconds']);
  });
});

describe('ZMcpServerConfig limits', () => {
  const stdio = { name: 'x', transport: 'stdio', command: '/usr/bin/node' };
  const entries = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`K${i}`, 'v']));
  const nested = (depth: number) => {
    let value: unknown = 1;
    for (let level = 0; level < depth; level++) value = { k: value };
    return value as Record<string, unknown>;
  };

  it('accepts every field at its cap', () => {
    const atCaps = {
      ...stdio,
      name: 'n'.repeat(IDENTIFIER_MAX_LENGTH),
      args: Array.from({ length: MCP_ARGS_MAX_ITEMS }, () => 'a'.repeat(MCP_ARG_MAX_LENGTH)),
      headers: entries(MCP_MAP_MAX_ENTRIES),
      env: { [`E${'N'.repeat(MCP_MAP_KEY_MAX_LENGTH - 1)}`]: 'v'.repeat(SECRET_MAX_LENGTH) },
      sessionKwargs: nested(SESSION_KWARGS_MAX_DEPTH),
    };
    expect(ZMcpServerConfig.safeParse(atCaps).success).toBe(true);
  });

  it.each([
    ['name', { name: 'n'.repeat(IDENTIFIER_MAX_LENGTH + 1) }, 'name'],
    ['command', { command: `/${'c'.repeat(PATH_MAX_LENGTH)}` }, 'command'],
    ['cwd', { cwd: `/${'c'.repeat(PATH_MAX_LENGTH)}` }, 'cwd'],
    ['args count', { args: Array.from({ length: MCP_ARGS_MAX_ITEMS + 1 }, () => 'a') }, 'args'],
    ['one arg', { args: ['ok', 'a'.repeat(MCP_ARG_MAX_LENGTH + 1)] }, 'args[1]'],
    ['header count', { headers: entries(MCP_MAP_MAX_ENTRIES + 1) }, 'headers'],
    ['header name', { headers: { 'X Bad': 'v' } }, 'headers["X Bad"]'],
    ['header value', { headers: { 'X-Key': 'v'.repeat(SECRET_MAX_LENGTH + 1) } }, 'headers["X-Key"]'],
    ['header line break', { headers: { 'X-Key': 'a\r\nX-Injected: 1' } }, 'headers["X-Key"]'],
    ['env count', { env: entries(MCP_MAP_MAX_ENTRIES + 1) }, 'env'],
    [
      'env name',
      { env: { [`E${'N'.repeat(MCP_MAP_KEY_MAX_LENGTH)}`]: 'v' } },
      `env.E${'N'.repeat(MCP_MAP_KEY_MAX_LENGTH)}`,
    ],
    ['env value', { env: { TOKEN: 'v'.repeat(SECRET_MAX_LENGTH + 1) } }, 'env.TOKEN'],
    [
      'sessionKwargs depth',
      { sessionKwargs: nested(SESSION_KWARGS_MAX_DEPTH + 1) },
      `sessionKwargs${'.k'.repeat(SESSION_KWARGS_MAX_DEPTH)}`,
    ],
    ['sessionKwargs size', { sessionKwargs: { big: 'x'.repeat(SESSION_KWARGS_MAX_BYTES) } }, 'sessionKwargs'],
  ])('refuses an oversized %s, naming it', (_what, fields, path) => {
    expect(rejectedPaths({ ...stdio, ...fields })).toEqual([path]);
  });

  it('measures sessionKwargs in bytes of UTF-8, not in characters', () => {
    const euros = '€'.repeat(Math.ceil(SESSION_KWARGS_MAX_BYTES / 3));
    expect(rejectedPaths({ ...stdio, sessionKwargs: { euros } })).toEqual(['sessionKwargs']);
  });

  it('refuses a url that hides a bidirectional override, and an overlong one', () => {
    expect(rejected({ name: 'x', url: 'https://example.com/\u202Etxt.exe' })).toEqual([
      { path: 'url', message: 'Must not contain control, format (such as bidirectional override) or space characters' },
    ]);
    expect(rejectedPaths({ name: 'x', url: `https://example.com/${'a'.repeat(URL_MAX_LENGTH)}` })).toEqual(['url']);
  });
});

describe('ZMcpServerConfig transport rules', () => {
  it.each(['streamable_http', 'sse'])('requires url for %s, at url', (transport) => {
    expect(rejected({ name: 'x', transport })).toEqual([
      { path: 'url', message: `url is required when transport is "${transport}"` },
    ]);
  });

  it('requires url for websocket', () => {
    expect(rejectedPaths({ name: 'x', transport: 'websocket' })).toEqual(['url']);
  });

  it.each(['https://mcp.example.com/mcp', 'http://localhost:8080/sse'])('accepts %s for sse', (url) => {
    expect(ZMcpServerConfig.safeParse({ name: 'x', transport: 'sse', url }).success).toBe(true);
  });

  it.each(['not a url', '/relative/path', 'localhost:8080'])('rejects the non-URL %j', (url) => {
    expect(rejectedPaths({ name: 'x', url })).toEqual(['url']);
  });

  it('rejects an empty url once', () => {
    expect(rejected({ name: 'x', url: '' })).toEqual([{ path: 'url', message: 'url must be an absolute URL' }]);
  });

  it('rejects an ftp: url for streamable_http, naming the allowed schemes', () => {
    expect(rejected({ name: 'x', url: 'ftp://example.com/mcp' })).toEqual([
      { path: 'url', message: 'url must use http or https when transport is "streamable_http"' },
    ]);
  });

  it('rejects a ws: url for sse', () => {
    expect(rejectedPaths({ name: 'x', transport: 'sse', url: 'ws://example.com/' })).toEqual(['url']);
  });

  it.each(['ws://127.0.0.1:3001/', 'wss://mcp.example.com/socket'])('accepts %s for websocket', (url) => {
    expect(ZMcpServerConfig.safeParse({ name: 'x', transport: 'websocket', url }).success).toBe(true);
  });

  it('rejects an http: url for websocket', () => {
    expect(rejected({ name: 'x', transport: 'websocket', url: 'http://example.com/' })).toEqual([
      { path: 'url', message: 'url must use ws or wss when transport is "websocket"' },
    ]);
  });

  it('requires command for stdio, at command', () => {
    expect(rejected({ name: 'x', transport: 'stdio', args: ['server.js'] })).toEqual([
      { path: 'command', message: 'command is required when transport is "stdio"' },
    ]);
  });

  it('rejects a blank command', () => {
    expect(rejectedPaths({ name: 'x', transport: 'stdio', command: ' ' })).toEqual(['command']);
  });

  it('accepts and keeps a leftover url with stdio without checking it', () => {
    const parsed = ZMcpServerConfig.parse({ name: 'x', transport: 'stdio', command: 'npx', url: 'ftp://old' });
    expect(parsed.url).toBe('ftp://old');
  });

  it('does not require command for network transports', () => {
    expect(ZMcpServerConfig.safeParse(minimalHttp).success).toBe(true);
  });

  it('is registered for OpenAPI as "MCPServer"', () => {
    expect(z.globalRegistry.get(ZMcpServerConfig)?.id).toBe('MCPServer');
  });
});

describe('what a tenant may set for a stdio server', () => {
  const stdio = { name: 'x', transport: 'stdio', command: '/usr/bin/node' };

  it.each([
    'NODE_OPTIONS',
    'NODE_PATH',
    'LD_PRELOAD',
    'LD_LIBRARY_PATH',
    'LD_AUDIT',
    'DYLD_INSERT_LIBRARIES',
    'PATH',
    'Path',
    'PYTHONPATH',
    'PYTHONSTARTUP',
    'PERL5OPT',
    'RUBYOPT',
    'BASH_ENV',
    'ENV',
    'JAVA_TOOL_OPTIONS',
    'npm_config_registry',
    'GLIBC_TUNABLES',
    'A=B',
    '',
  ])('refuses env %j, at its name', (name) => {
    expect(rejectedPaths({ ...stdio, env: { [name]: 'x' } })).toEqual([formatIssuePath(['env', name])]);
  });

  it('keeps ordinary variables such as API tokens', () => {
    expect(ZMcpServerConfig.parse({ ...stdio, env: { GITHUB_TOKEN: 't', API_KEY: 'k' } }).env).toEqual({
      GITHUB_TOKEN: 't',
      API_KEY: 'k',
    });
  });

  it.each(['relative/dir', './srv', '/srv/mcp/../../etc', ''])('refuses cwd %j', (cwd) => {
    expect(rejectedPaths({ ...stdio, cwd })).toEqual(['cwd']);
  });
});

describe('ZMcpServerConfig of transport "agent"', () => {
  const agentId = '6f1c1b5e-8a43-4b0c-9f7e-2d1f0c9a7b11';
  const minimalAgent = { name: 'helper', transport: 'agent', agent_id: agentId };

  it('needs only the agent it calls', () => {
    expect(ZMcpServerConfig.parse(minimalAgent)).toStrictEqual({ ...DEFAULTS, ...minimalAgent });
  });

  it('refuses whatever would let a tenant reach elsewhere or send something along', () => {
    expect(
      rejectedPaths({
        ...minimalAgent,
        url: 'http://127.0.0.1:1/mcp',
        command: 'node',
        cwd: '/srv',
        args: ['x'],
        headers: { Authorization: 'Bearer x' },
        env: { A: 'b' },
      }).sort(),
    ).toEqual(['args', 'command', 'cwd', 'env', 'headers', 'url']);
  });

  it('requires agent_id, as a UUID, and only on this transport', () => {
    expect(rejectedPaths({ name: 'helper', transport: 'agent' })).toEqual(['agent_id']);
    expect(rejectedPaths({ ...minimalAgent, agent_id: 'not-a-uuid' })).toEqual(['agent_id']);
    expect(rejectedPaths({ ...minimalHttp, agent_id: agentId })).toEqual(['agent_id']);
  });
});
