import { createServer, type IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import { type TMcpServerConfigInput, ZMcpServerConfig } from '@agentplane/contracts';
import { createLogger } from '@agentplane/server-kit';
import { listenOnLoopback, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import {
  EVERYTHING_ENTRY,
  EVERYTHING_STDIO_COMMAND,
  type EverythingHttpServer,
  everythingStdioServer,
  startEverythingHttpServer,
} from '../testing/everything-server.js';
import { createLoopbackEgress } from '../testing/loopback-egress.js';
import { type RecordingProxy, startRecordingProxy } from '../testing/recording-proxy.js';
import { holdRefusingPort, type RefusingPort } from '../testing/refusing-port.js';
import { startWebSocketMcpServer } from '../testing/websocket-mcp-server.js';
import { connectMcpToolset, type McpToolset } from './mcp-toolset.js';

const logger = createLogger({ name: 'mcp-test', level: 'silent' });
// The operator permits server-everything, a process that exits at once, and the everything entry run from its folder.
const EXITS_AT_ONCE = { command: process.execPath, args: ['-e', 'process.exit(3)'] };
const IN_PLACE = { command: process.execPath, args: ['index.js', 'stdio'] };
// server-everything after a 1.5 s pause, as a cold npx start would make it.
const STARTS_LATE = {
  command: process.execPath,
  args: ['--import', 'data:text/javascript,await new Promise((r) => setTimeout(r, 1500))', EVERYTHING_ENTRY, 'stdio'],
};
const stdio = {
  commands: [EVERYTHING_STDIO_COMMAND, EXITS_AT_ONCE, IN_PLACE, STARTS_LATE].map((line) => ({
    ...line,
    extraArgs: false as const,
  })),
  cwdRoot: path.dirname(path.dirname(EVERYTHING_ENTRY)),
};
const servers = (...inputs: TMcpServerConfigInput[]) => inputs.map((input) => ZMcpServerConfig.parse(input));
const never = new AbortController().signal;
const egress = createLoopbackEgress();
const options = { logger, stdio, egress };

afterAll(() => egress.close());

describe('MCP toolset against server-everything', () => {
  let http: EverythingHttpServer;
  let remote: RecordingProxy;
  let dead: RefusingPort;
  let toolset: McpToolset;

  beforeAll(async () => {
    http = await startEverythingHttpServer();
    [remote, dead] = await Promise.all([startRecordingProxy(http.url), holdRefusingPort()]);
    toolset = await connectMcpToolset(
      servers(
        // 3 s bounds each call, not connecting: starting a stdio server on a loaded machine can take longer.
        everythingStdioServer({ name: 'local', env: { AGENTPLANE_PROBE: 'from-config' }, timeoutSeconds: 3 }),
        { name: 'remote', transport: 'streamable_http', url: remote.url, headers: { 'X-Probe': 'yes' } },
        { name: 'dead-http', transport: 'streamable_http', url: `${dead.origin}/mcp`, timeoutSeconds: 2 },
        { name: 'dead-stdio', transport: 'stdio', ...EXITS_AT_ONCE },
      ),
      options,
    );
  });

  afterAll(async () => {
    await toolset?.close();
    await Promise.all([remote?.close(), dead?.release()]);
    await http?.stop();
  });

  it('lists the tools of both live servers under <server>__<tool> names', () => {
    const names = toolset.tools.map((tool) => tool.name);
    for (const server of ['local', 'remote']) {
      expect(names).toEqual(expect.arrayContaining([`${server}__echo`, `${server}__get-sum`]));
    }
    const echo = toolset.tools.find((tool) => tool.name === 'local__echo');
    expect(echo?.parameters).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
    expect(names.every((name) => /^[a-zA-Z0-9_-]{1,64}$/.test(name))).toBe(true);
  });

  it('skips servers that cannot be reached and reports them, keeping the others', () => {
    expect(toolset.statuses()).toEqual([
      expect.objectContaining({ name: 'local', status: 'connected' }),
      expect.objectContaining({ name: 'remote', status: 'connected' }),
      expect.objectContaining({ name: 'dead-http', status: 'failed', error: expect.any(String) }),
      expect.objectContaining({ name: 'dead-stdio', status: 'failed', error: expect.any(String) }),
    ]);
    expect(toolset.tools.some((tool) => tool.name.startsWith('dead'))).toBe(false);
  });

  it('calls tools over stdio and streamable HTTP', async () => {
    await expect(toolset.call('local__echo', { message: 'hi' }, never)).resolves.toEqual({
      text: 'Echo: hi',
      isError: false,
    });
    const sum = await toolset.call('remote__get-sum', { a: 2, b: 3 }, never);
    expect(sum.isError).toBe(false);
    expect(sum.text).toContain('5');
  });

  it('passes the configured env to a stdio server, on top of a safe default environment', async () => {
    const { text } = await toolset.call('local__get-env', {}, never);
    const env = JSON.parse(text) as Record<string, string>;
    expect(env.AGENTPLANE_PROBE).toBe('from-config');
    expect(env.PATH).toBeDefined();
  });

  // The operation takes ten minutes and the SDK's own request timeout is 60 s: within this test's 30 s
  // time limit, only the 3 s timeout can end the call.
  it('honours timeoutSeconds on a call, as an error outcome the model can read', async () => {
    const outcome = await toolset.call('local__trigger-long-running-operation', { duration: 600, steps: 600 }, never);
    expect(outcome).toEqual({ text: expect.stringMatching(/timed out after 3 s/), isError: true });
  }, 30_000);

  it('rejects when the run is aborted during a call, and tells the server to cancel it', async () => {
    const abort = new AbortController();
    const seen = remote.rpcMethods.length;
    const reached = (method: string) => remote.rpcMethods.slice(seen).includes(method);
    // Ten minutes: only the abort can end the call within the test.
    const call = toolset.call('remote__trigger-long-running-operation', { duration: 600, steps: 600 }, abort.signal);
    await waitUntil(() => reached('tools/call'), { what: 'the call to reach the server' });
    abort.abort();
    await expect(call).rejects.toThrow(/aborted/);
    await waitUntil(() => reached('notifications/cancelled'), { what: 'the cancellation to reach the server' });
  });

  it('connects a server that takes longer to start than its call timeout', async () => {
    const late = await connectMcpToolset(
      servers({ name: 'late', transport: 'stdio', ...STARTS_LATE, timeoutSeconds: 1 }),
      options,
    );
    try {
      expect(late.statuses()).toEqual([expect.objectContaining({ name: 'late', status: 'connected' })]);
    } finally {
      await late.close();
    }
  }, 60_000);

  it('answers an unknown tool name with an error outcome', async () => {
    await expect(toolset.call('nope', {}, never)).resolves.toMatchObject({ isError: true });
  });
});

describe('transports and their settings', () => {
  it('speaks the older SSE transport too', async () => {
    const sse = await startEverythingHttpServer('sse');
    const toolset = await connectMcpToolset(servers({ name: 'legacy', transport: 'sse', url: sse.url }), options);
    try {
      expect(toolset.statuses()).toEqual([expect.objectContaining({ name: 'legacy', status: 'connected' })]);
      await expect(toolset.call('legacy__echo', { message: 'old' }, never)).resolves.toEqual({
        text: 'Echo: old',
        isError: false,
      });
    } finally {
      await toolset.close();
      await sse.stop();
    }
  });

  it('speaks WebSocket', async () => {
    const ws = await startWebSocketMcpServer();
    const toolset = await connectMcpToolset(servers({ name: 'socket', transport: 'websocket', url: ws.url }), options);
    try {
      expect(toolset.statuses()).toEqual([expect.objectContaining({ name: 'socket', status: 'connected', tools: 1 })]);
      await expect(toolset.call('socket__shout', { text: 'hey' }, never)).resolves.toEqual({
        text: 'HEY',
        isError: false,
      });
    } finally {
      await toolset.close();
      await ws.close();
    }
  });

  it('sends the configured headers on streamable HTTP requests', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(401).end();
    });
    const url = `${(await listenOnLoopback(server)).origin}/mcp`;
    try {
      const toolset = await connectMcpToolset(
        servers({ name: 'guarded', transport: 'streamable_http', url, headers: { Authorization: 'Bearer mcp-key' } }),
        options,
      );
      expect(toolset.statuses()[0]).toMatchObject({ status: 'failed' });
      expect(seen[0]?.authorization).toBe('Bearer mcp-key');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('starts a stdio server in its configured cwd', async () => {
    // The entry is given relative to its own folder, so the server starts only if cwd is applied.
    const inPlace = everythingStdioServer({ name: 'relative', ...IN_PLACE, cwd: path.dirname(EVERYTHING_ENTRY) });
    const toolset = await connectMcpToolset(servers(inPlace), options);
    await toolset.close();
    expect(toolset.statuses()).toEqual([expect.objectContaining({ name: 'relative', status: 'connected' })]);
  });

  it("writes a stdio server's stderr to the engine log", async () => {
    const lines: string[] = [];
    const capture = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const toolset = await connectMcpToolset(servers(everythingStdioServer({ name: 'chatty' })), {
      logger: capture,
      stdio,
      egress,
    });
    await toolset.close();
    const logged = lines.map((line) => JSON.parse(line) as { mcp_server?: string; stderr?: string });
    expect(logged).toContainEqual(
      expect.objectContaining({
        mcp_server: 'chatty',
        stderr: expect.stringContaining('Starting default (STDIO) server'),
      }),
    );
  });
});

describe('closing a toolset', () => {
  it('ends the stdio process, and the HTTP session only when terminateOnClose is set', async () => {
    const http = await startEverythingHttpServer();
    const [ending, keeping] = await Promise.all([startRecordingProxy(http.url), startRecordingProxy(http.url)]);
    try {
      const toolset = await connectMcpToolset(
        servers(
          everythingStdioServer(),
          { name: 'ending', transport: 'streamable_http', url: ending.url },
          { name: 'keeping', transport: 'streamable_http', url: keeping.url, terminateOnClose: false },
        ),
        options,
      );
      expect(toolset.statuses().every((status) => status.status === 'connected')).toBe(true);
      await toolset.close();
      expect(ending.httpMethods).toContain('DELETE');
      expect(keeping.httpMethods).not.toContain('DELETE');
      await expect(toolset.call('everything__echo', { message: 'x' }, never)).resolves.toMatchObject({ isError: true });
    } finally {
      await Promise.all([ending.close(), keeping.close()]);
      await http.stop();
    }
  });
});
