// The manager's /metrics, scraped from its own listener while real requests go through the API: valid
// Prometheus text, HTTP durations by route pattern, and publishes timed with their fan-out.
import { type PrometheusSample, sampleValue, scrapeMetrics } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { agentBody, createThroughApi, mcpServerBody } from '../testing/resource-fixtures.js';

let ctx: ManagerTestContext;
let owner: SignedInUser;
let metricsUrl: string;

beforeAll(async () => {
  ctx = await startManagerTestApp({ METRICS_PORT: '0' });
  metricsUrl = ctx.metricsUrl as string;
  owner = await signUpUser(ctx.app);
});
afterAll(() => ctx?.close());

const moved = (before: PrometheusSample[], after: PrometheusSample[], name: string, labels = {}) =>
  sampleValue(after, name, labels) - sampleValue(before, name, labels);

describe('manager metrics', () => {
  it('time requests by the route pattern and status, never by the ids in the URL', async () => {
    const before = await scrapeMetrics(metricsUrl);
    const agentId = await createThroughApi(owner, '/api/v1/agents/', agentBody());
    expect((await owner.agent.get(`/api/v1/agents/${agentId}`)).status).toBe(200);
    expect((await owner.agent.get('/api/v1/agents/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const after = await scrapeMetrics(metricsUrl);
    const byId = { method: 'GET', route: '/api/v1/agents/:id' };
    expect(moved(before, after, 'agentplane_http_request_duration_seconds_count', { ...byId, status: '200' })).toBe(1);
    expect(moved(before, after, 'agentplane_http_request_duration_seconds_count', { ...byId, status: '404' })).toBe(1);
    expect(after.some((sample) => sample.labels.route?.includes(agentId))).toBe(false);
  });

  it('time each publish and count the agents it recomputed', async () => {
    const mcpId = await createThroughApi(owner, '/api/v1/mcp-servers/', mcpServerBody());
    await createThroughApi(owner, '/api/v1/agents/', agentBody({ mcp_server_ids: [mcpId] }));
    await createThroughApi(owner, '/api/v1/agents/', agentBody({ mcp_server_ids: [mcpId] }));
    const before = await scrapeMetrics(metricsUrl);
    // A change to a shared MCP server republishes both agents that use it, in one publish.
    const renamed = await owner.agent.patch(`/api/v1/mcp-servers/${mcpId}`).send(mcpServerBody({ name: 'renamed' }));
    expect(renamed.status).toBe(200);
    const after = await scrapeMetrics(metricsUrl);
    expect(moved(before, after, 'agentplane_publish_duration_seconds_count')).toBe(1);
    expect(moved(before, after, 'agentplane_publish_fan_out_agents_count')).toBe(1);
    expect(moved(before, after, 'agentplane_publish_fan_out_agents_sum')).toBe(2);
  });

  it('serve the default process metrics', async () => {
    const samples = await scrapeMetrics(metricsUrl);
    expect(sampleValue(samples, 'agentplane_process_resident_memory_bytes', { service: 'manager' })).toBeGreaterThan(0);
  });
});

describe('without METRICS_PORT', () => {
  it('serves no metrics: no listener, and 404 on the API port', async () => {
    const plain = await startManagerTestApp();
    try {
      expect(plain.metricsUrl).toBeUndefined();
      expect((await request(plain.app).get('/metrics')).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
