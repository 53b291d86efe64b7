// The agent's tool policy (contracts' ZToolPolicy) in the engine: against server-everything, a denied or
// not-allowed tool is missing from the toolbox every framework lists, and a call to it anyway is
// refused as a tool error and counted. A config row written straight into the database, around the
// manager's validation, is held to the same policy, and one whose policy is malformed is not applied.
// Custom agents (ctx.tools, ctx.callTool) and LangGraph graphs (getMcpTools) get the same toolbox.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { HttpAgent } from '@ag-ui/client';
import { EventType } from '@ag-ui/core';
import { type TToolPolicy, ZMcpServerConfig } from '@agentplane/contracts';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { createLogger } from '@agentplane/server-kit';
import {
  type FakeOpenAiServer,
  overrideEnvironment,
  sampleValue,
  scrapeMetrics,
  startFakeOpenAiServer,
  waitUntil,
} from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createEngineMetrics } from '../metrics/engine-metrics.js';
import type { RunningEngine } from '../start-engine.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import {
  ALLOW_EVERYTHING_STDIO,
  type EverythingHttpServer,
  everythingStdioServer,
  startEverythingHttpServer,
} from '../testing/everything-server.js';
import { createLoopbackEgress } from '../testing/loopback-egress.js';
import { makeCustomEngineConfig, makeLangGraphEngineConfig } from '../testing/module-engine-configs.js';
import { runWithClient } from '../testing/run-with-client.js';
import { startDatabaseEngine, startFileEngine } from '../testing/test-engine.js';
import { connectMcpToolset } from './mcp-toolset.js';

const logger = createLogger({ name: 'tool-policy-test', level: 'silent' });
const never = new AbortController().signal;

describe('a toolset under a tool policy', () => {
  let http: EverythingHttpServer;
  const egress = createLoopbackEgress();

  beforeAll(async () => {
    http = await startEverythingHttpServer();
  });

  afterAll(async () => {
    await http?.stop();
    await egress.close();
  });

  async function connect(policy: TToolPolicy) {
    const metrics = createEngineMetrics();
    const server = ZMcpServerConfig.parse({ name: 'remote', transport: 'streamable_http', url: http.url });
    const toolset = await connectMcpToolset([server], {
      logger,
      stdio: { commands: [], cwdRoot: '/' },
      egress,
      policy,
      toolRefusals: metrics.toolRefusals,
    });
    const refusals = async (tool: string) =>
      (await metrics.toolRefusals.get()).values.find((sample) => sample.labels.tool === tool)?.value ?? 0;
    return { toolset, refusals, names: toolset.tools.map((tool) => tool.name) };
  }

  it('neither lists nor calls a denied tool, and counts the refused call', async () => {
    const { toolset, refusals, names } = await connect({ deny: ['*__get-sum'] });
    try {
      expect(names).toContain('remote__echo');
      expect(names).not.toContain('remote__get-sum');
      expect(await toolset.call('remote__get-sum', { a: 1, b: 2 }, never)).toEqual({
        text: 'The tool "remote__get-sum" is not permitted for this agent.',
        isError: true,
      });
      expect(await refusals('get-sum')).toBe(1);
      const echoed = await toolset.call('remote__echo', { message: 'still here' }, never);
      expect(echoed).toMatchObject({ isError: false, text: expect.stringContaining('still here') });
    } finally {
      await toolset.close();
    }
  });

  it('with an allow list, offers and calls only the allowed tools, and deny still wins', async () => {
    const { toolset, refusals, names } = await connect({
      allow: ['remote__echo', 'remote__get-s*', 'remote__get-env'],
      deny: ['*-env', '*__*structured*'],
    });
    try {
      expect(names.sort()).toEqual(['remote__echo', 'remote__get-sum'].sort());
      const refused = await toolset.call('remote__get-env', {}, never);
      expect(refused).toMatchObject({ isError: true, text: expect.stringContaining('not permitted') });
      expect(await refusals('get-env')).toBe(1);
      expect(await toolset.call('remote__get-sum', { a: 2, b: 40 }, never)).toMatchObject({ isError: false });
    } finally {
      await toolset.close();
    }
  });
});

describe('a config row written around the manager', () => {
  let model: FakeOpenAiServer;
  let database: TestDatabase;
  let row: { agentId: string; workspaceId: string };
  let engine: RunningEngine;
  let version = 0;

  /** Writes the agent's row as a publish would, but with no manager in the way, and waits until it is served. */
  async function publish(tools: TToolPolicy) {
    version += 1;
    const config = makeLlmEngineConfig({
      ...row,
      model: { provider: 'openai', name: 'm', baseUrl: model.baseUrl },
      mcpServers: [everythingStdioServer()],
      tools,
    });
    await writeConfigRow(database.prisma, row, version, config);
    const published = version;
    await waitUntil(
      async () => {
        const health = (await (await fetch(`${engine.url}/health`)).json()) as { config_version?: number };
        return health.config_version === published;
      },
      { what: `config version ${published} to be served` },
    );
  }

  async function run() {
    const agent = new HttpAgent({
      url: `${engine.url}/agent/run`,
      threadId: randomUUID(),
      initialMessages: [{ id: randomUUID(), role: 'user', content: 'go' }],
    });
    return runWithClient(agent);
  }

  const offered = () => model.requests.at(-1)?.body.tools?.map((tool) => tool.function.name) ?? [];

  beforeAll(async () => {
    [model, database] = await Promise.all([startFakeOpenAiServer(), createTestDatabase()]);
    const workspaceId = (await makeWorkspace(database.prisma)).id;
    row = { agentId: (await makeAgent(database.prisma, workspaceId)).id, workspaceId };
    version = 1;
    await writeConfigRow(database.prisma, row, version, makeLlmEngineConfig(row));
    engine = await startDatabaseEngine(database, row.agentId, { ...ALLOW_EVERYTHING_STDIO, METRICS_PORT: '0' });
  });

  afterAll(async () => {
    await engine?.shutdown();
    await Promise.all([model?.close(), database?.drop()]);
  });

  it('keeps a denied tool from the model, refuses the call it makes up anyway, and the run goes on', async () => {
    await publish({ deny: ['everything__get-sum'] });
    const before = await scrapeMetrics(engine.metricsUrl as string);
    model.script(
      { toolCalls: [{ id: 'call_sum', name: 'everything__get-sum', arguments: ['{"a":2,"b":40}'] }] },
      { text: ['I may not add.'] },
    );
    const { events } = await run();
    const firstRequestTools = model.requests.at(-2)?.body.tools?.map((tool) => tool.function.name) ?? [];
    expect(firstRequestTools).toContain('everything__echo');
    expect(firstRequestTools).not.toContain('everything__get-sum');
    expect(events.find((event) => event.type === EventType.TOOL_CALL_RESULT)).toMatchObject({
      toolCallId: 'call_sum',
      content: 'The tool "everything__get-sum" is not permitted for this agent.',
    });
    expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
    const after = await scrapeMetrics(engine.metricsUrl as string);
    const labels = { mcp_server: 'everything', tool: 'get-sum' };
    expect(
      sampleValue(after, 'agentplane_tool_calls_refused_total', labels) -
        sampleValue(before, 'agentplane_tool_calls_refused_total', labels),
    ).toBe(1);
  });

  it('offers only the allowed tools of a later row', async () => {
    await publish({ allow: ['everything__echo'] });
    model.script({ text: ['ok'] });
    await run();
    expect(offered()).toEqual(['everything__echo']);
  });
  it('refuses a row whose policy no engine could enforce, and keeps enforcing the last good one', async () => {
    await publish({ allow: ['everything__echo'] });
    const invalid = makeLlmEngineConfig({ ...row, mcpServers: [everythingStdioServer()] });
    (invalid.agent.config as { tools?: unknown }).tools = { deny: ['everything__(echo|get-sum)'] };
    version += 1;
    await writeConfigRow(database.prisma, row, version, invalid);
    const rejected = version;
    const health = async () =>
      (await (await fetch(`${engine.url}/health`)).json()) as {
        config_version?: number;
        rejected_config?: { version: number };
      };
    await waitUntil(async () => (await health()).rejected_config?.version === rejected, {
      what: `config version ${rejected} to be rejected`,
    });
    expect((await health()).config_version).toBe(rejected - 1);
    model.script({ text: ['ok'] });
    await run();
    expect(offered()).toEqual(['everything__echo']);
  });
});

describe('module agents under a tool policy', () => {
  const fixtures = fileURLToPath(new URL('../agents/custom/fixtures', import.meta.url));
  const examples = fileURLToPath(new URL('../../examples', import.meta.url));
  let model: FakeOpenAiServer;
  let custom: RunningEngine;
  let graph: RunningEngine;
  let restoreEnvironment = () => {};

  beforeAll(async () => {
    model = await startFakeOpenAiServer();
    // The example graph reads its model settings from the environment when the engine imports it.
    restoreEnvironment = overrideEnvironment({
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'sk-graph',
      OPENAI_MODEL: 'fake-model',
    });
    const mcpServers = [everythingStdioServer()];
    [custom, graph] = await Promise.all([
      startFileEngine(
        makeCustomEngineConfig('echo-agent.js:createEchoAgent', {
          mcpServers,
          tools: { allow: ['everything__get-sum'] },
        }),
        { env: { ENGINE_AGENTS_DIR: fixtures, ...ALLOW_EVERYTHING_STDIO } },
      ),
      startFileEngine(
        makeLangGraphEngineConfig('langgraph/tool-agent.js:graph', {
          mcpServers,
          tools: { deny: ['everything__echo'] },
        }),
        { env: { ENGINE_AGENTS_DIR: examples, ...ALLOW_EVERYTHING_STDIO } },
      ),
    ]);
  });

  afterAll(async () => {
    await Promise.all([custom?.shutdown(), graph?.shutdown()]);
    await model?.close();
    restoreEnvironment();
  });

  const say = (engine: RunningEngine, content: string) =>
    runWithClient(
      new HttpAgent({
        url: `${engine.url}/agent/run`,
        threadId: randomUUID(),
        initialMessages: [{ id: randomUUID(), role: 'user', content }],
      }),
    );

  it('gives a custom agent only the allowed tools in ctx.tools, and refuses its ctx.callTool of another', async () => {
    const listed = await say(custom, 'hello');
    expect(listed.result?.newMessages).toEqual([
      expect.objectContaining({ content: 'echo: hello (agent test custom agent, 1 tools)' }),
    ]);
    // The fixture calls everything__echo by name.
    const called = await say(custom, 'tool ping');
    expect(called.failure).toBeUndefined();
    expect(called.result?.newMessages).toEqual([
      expect.objectContaining({ content: 'tool said: The tool "everything__echo" is not permitted for this agent.' }),
    ]);
  });

  it("keeps a denied tool out of a graph's getMcpTools, its model's tools and its capabilities", async () => {
    model.script({ text: ['ok'] });
    const { failure, last } = await say(graph, 'hi');
    expect(failure).toBeUndefined();
    expect(last?.type).toBe(EventType.RUN_FINISHED);
    const offered = model.requests.at(-1)?.body.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toContain('everything__get-sum');
    expect(offered).not.toContain('everything__echo');
    const capabilities = (await (await fetch(`${graph.url}/agent/capabilities`)).json()) as {
      tools: { items: { name: string }[] };
    };
    const listed = capabilities.tools.items.map((tool) => tool.name);
    expect(listed).toContain('everything__get-sum');
    expect(listed).not.toContain('everything__echo');
  });
});
