// The engine's /metrics, scraped from its own listener while real runs go through it: valid Prometheus
// text, and counters that move with the runs, the tokens the model reported and the tools it called.
import { randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import {
  type FakeOpenAiServer,
  makeRunAgentInput,
  type PrometheusSample,
  sampleValue,
  scrapeMetrics,
  startFakeOpenAiServer,
  waitUntil,
} from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { ALLOW_EVERYTHING_STDIO, everythingStdioServer } from '../testing/everything-server.js';
import { runWithClient } from '../testing/run-with-client.js';
import { startDatabaseEngine } from '../testing/test-engine.js';

let model: FakeOpenAiServer;
let database: TestDatabase;
let agentId: string;
let engine: RunningEngine;
let metricsUrl: string;

beforeAll(async () => {
  [model, database] = await Promise.all([startFakeOpenAiServer(), createTestDatabase()]);
  const workspaceId = (await makeWorkspace(database.prisma)).id;
  agentId = (await makeAgent(database.prisma, workspaceId)).id;
  const config = makeLlmEngineConfig({
    agentId,
    workspaceId,
    model: { provider: 'openai', name: 'm', baseUrl: model.baseUrl },
    mcpServers: [everythingStdioServer()],
  });
  await writeConfigRow(database.prisma, { agentId, workspaceId }, 3, config);
  engine = await startDatabaseEngine(database, agentId, { ...ALLOW_EVERYTHING_STDIO, METRICS_PORT: '0' });
  metricsUrl = engine.metricsUrl as string;
  await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
});

afterAll(async () => {
  await engine?.shutdown();
  await Promise.all([model?.close(), database?.drop()]);
});

async function runOnce(): Promise<string | undefined> {
  const agent = new HttpAgent({
    url: `${engine.url}/agent/run`,
    threadId: randomUUID(),
    initialMessages: [{ id: randomUUID(), role: 'user', content: 'hi' }],
  });
  const { last } = await runWithClient(agent, { runId: randomUUID() });
  return last?.type;
}

/** How much each sample moved between two scrapes. */
const moved = (before: PrometheusSample[], after: PrometheusSample[], name: string, labels = {}) =>
  sampleValue(after, name, labels) - sampleValue(before, name, labels);

describe('engine metrics', () => {
  it('count a streamed run: started, finished, first event, tokens, and its HTTP request by route', async () => {
    model.script({ text: ['hello'], usage: { prompt_tokens: 11, completion_tokens: 4 } });
    const before = await scrapeMetrics(metricsUrl);
    expect(await runOnce()).toBe('RUN_FINISHED');
    // The run's record is finished, and the response timed, before the client reads the stream's end.
    const after = await scrapeMetrics(metricsUrl);
    const route = { method: 'POST', route: '/agent/run', status: '200' };
    expect(moved(before, after, 'agentplane_http_request_duration_seconds_count', route)).toBe(1);
    expect(moved(before, after, 'agentplane_runs_finished_total', { source: 'stream', outcome: 'succeeded' })).toBe(1);
    expect(moved(before, after, 'agentplane_runs_started_total', { source: 'stream' })).toBe(1);
    expect(moved(before, after, 'agentplane_run_first_event_seconds_count', { source: 'stream' })).toBe(1);
    expect(moved(before, after, 'agentplane_model_input_tokens_total')).toBe(11);
    expect(moved(before, after, 'agentplane_model_output_tokens_total')).toBe(4);
    expect(sampleValue(after, 'agentplane_runs_active', { source: 'stream' })).toBe(0);
    expect(sampleValue(after, 'agentplane_streams_open', { kind: 'live' })).toBe(0);
    expect(after.some((sample) => sample.labels.route?.includes(agentId))).toBe(false);
  });

  it('count a background run under its source, and time its rejoin stream by route', async () => {
    model.script({ text: ['later'], usage: { prompt_tokens: 5, completion_tokens: 2 } });
    const before = await scrapeMetrics(metricsUrl);
    const input = makeRunAgentInput('hi');
    const queued = await fetch(`${engine.url}/agent/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
    });
    expect(queued.status).toBe(202);
    const finished = { source: 'background', outcome: 'succeeded' };
    await waitUntil(
      async () => moved(before, await scrapeMetrics(metricsUrl), 'agentplane_runs_finished_total', finished) === 1,
      { what: 'the background run to be counted as finished' },
    );
    const after = await scrapeMetrics(metricsUrl);
    expect(moved(before, after, 'agentplane_runs_started_total', { source: 'background' })).toBe(1);
    expect(moved(before, after, 'agentplane_model_input_tokens_total')).toBe(5);
    const rejoin = await fetch(`${engine.url}/agent/runs/${input.runId}/stream`);
    expect(rejoin.status).toBe(200);
    await rejoin.text();
    const rejoined = await scrapeMetrics(metricsUrl);
    const route = { method: 'GET', route: '/agent/runs/:runId/stream', status: '200' };
    expect(moved(after, rejoined, 'agentplane_http_request_duration_seconds_count', route)).toBe(1);
    expect(sampleValue(rejoined, 'agentplane_streams_open', { kind: 'rejoin' })).toBe(0);
  });

  it('time each MCP tool call by server and tool', async () => {
    model.script(
      {
        toolCalls: [{ id: 'call-1', name: 'everything__echo', arguments: ['{"message":"hi"}'] }],
        usage: { prompt_tokens: 3, completion_tokens: 2 },
      },
      { text: ['done'], usage: { prompt_tokens: 7, completion_tokens: 1 } },
    );
    const before = await scrapeMetrics(metricsUrl);
    expect(await runOnce()).toBe('RUN_FINISHED');
    const after = await scrapeMetrics(metricsUrl);
    const tool = { mcp_server: 'everything', tool: 'echo', outcome: 'ok' };
    expect(moved(before, after, 'agentplane_tool_call_duration_seconds_count', tool)).toBe(1);
    expect(moved(before, after, 'agentplane_model_input_tokens_total')).toBe(10);
  });

  it('count a failed run by its outcome', async () => {
    // A 400 is not retried by the model client.
    model.script({ status: 400, message: 'refused' });
    const before = await scrapeMetrics(metricsUrl);
    expect(await runOnce()).toBe('RUN_ERROR');
    const after = await scrapeMetrics(metricsUrl);
    expect(moved(before, after, 'agentplane_runs_finished_total', { source: 'stream', outcome: 'failed' })).toBe(1);
    expect(sampleValue(after, 'agentplane_runs_active', { source: 'stream' })).toBe(0);
  });

  it('show the config version served and how long ago it changed', async () => {
    const samples = await scrapeMetrics(metricsUrl);
    expect(sampleValue(samples, 'agentplane_config_version')).toBe(3);
    expect(sampleValue(samples, 'agentplane_config_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(samples.some((sample) => sample.name === 'agentplane_config_age_seconds')).toBe(true);
  });

  it("read the channel queue's depth and oldest message's age per provider when scraped", async () => {
    // Not due for an hour, so the worker leaves it waiting.
    await database.prisma.inboundMessage.create({
      data: {
        agentId,
        integrationId: randomUUID(),
        providerMessageId: `wamid.${randomUUID()}`,
        sender: '491700000099',
        payload: { type: 'text', text: { body: 'later' } },
        nextAttemptAt: new Date(Date.now() + 3_600_000),
        createdAt: new Date(Date.now() - 120_000),
      },
    });
    const samples = await scrapeMetrics(metricsUrl);
    const whatsapp = { agent_id: agentId, provider: 'WHATSAPP' };
    expect(sampleValue(samples, 'agentplane_channel_queue_depth', whatsapp)).toBe(1);
    expect(sampleValue(samples, 'agentplane_channel_oldest_pending_age_seconds', whatsapp)).toBeGreaterThanOrEqual(120);
    expect(
      samples.some((sample) => sample.name === 'agentplane_channel_queue_depth' && sample.labels.provider === 'SLACK'),
    ).toBe(false);
  });

  it('serve the default process metrics', async () => {
    const samples = await scrapeMetrics(metricsUrl);
    expect(sampleValue(samples, 'agentplane_process_resident_memory_bytes')).toBeGreaterThan(0);
  });
});

describe('without METRICS_PORT', () => {
  it('serves no metrics: no listener, and 404 on the public port', async () => {
    const other = await startDatabaseEngine(database, agentId);
    try {
      expect(other.metricsUrl).toBeUndefined();
      expect((await fetch(`${other.url}/metrics`)).status).toBe(404);
    } finally {
      await other.shutdown();
    }
  });
});
