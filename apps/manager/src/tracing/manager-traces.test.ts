// The manager's own traces, sent where OTEL_EXPORTER_OTLP_TRACES_ENDPOINT says: a SERVER span per
// request, named by its route pattern with its status, continuing a caller's traceparent, and the
// publish a write makes as its child.

import { type OperatorTracing, readOperatorTracingSettings, startOperatorTracing } from '@agentplane/server-kit';
import {
  type OtlpReceiver,
  overrideEnvironment,
  type ReceivedSpan,
  sampleValue,
  scrapeMetrics,
  startOtlpReceiver,
} from '@agentplane/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import {
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { agentBody, createThroughApi } from '../testing/resource-fixtures.js';

let receiver: OtlpReceiver;
let ctx: ManagerTestContext;
let tracing: OperatorTracing | undefined;
let owner: SignedInUser;
let restoreEnvironment = () => {};
let spans: ReceivedSpan[] = [];

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  // The packaged exporter reads its endpoint from the environment, as the operator sets it.
  const env = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' };
  restoreEnvironment = overrideEnvironment(env);
  ctx = await startManagerTestApp({ ...env, METRICS_PORT: '0' });
  tracing = startOperatorTracing('agentplane-manager', ctx.config.tracing);
  owner = await signUpUser(ctx.app);
  const agentId = await createThroughApi(owner, '/api/v1/agents/', agentBody());
  await owner.agent.get(`/api/v1/agents/${agentId}`).set('traceparent', `00-${CALLER_TRACE}-${CALLER_SPAN}-01`);
  await owner.agent.get('/api/v1/agents/00000000-0000-4000-8000-000000000000');
  // Stopping sends every span ended so far: what follows reads them all.
  await tracing?.shutdown();
  spans = receiver.spans();
});

afterAll(async () => {
  restoreEnvironment();
  await ctx?.close();
  await receiver?.close();
});

it('is on when an OTLP endpoint is set', () => {
  expect(ctx.config.tracing).toEqual({ protocol: 'http/json' });
  expect(tracing).toBeDefined();
});

it('opens a SERVER span per request named by its route pattern, never by the ids in the URL', () => {
  const reads = spans.filter((span) => span.name === 'GET /api/v1/agents/:id');
  expect(reads.map((span) => span.attributes['http.response.status_code']).sort()).toEqual([200, 404]);
  expect(reads[0]).toMatchObject({ kind: 2, service: 'agentplane-manager' });
  expect(reads[0]?.attributes['http.route']).toBe('/api/v1/agents/:id');
  expect(spans.some((span) => span.name.includes('00000000-0000'))).toBe(false);
});

it('leaves the request metrics their route patterns (both follow the route)', async () => {
  const samples = await scrapeMetrics(ctx.metricsUrl as string);
  const byId = { method: 'GET', route: '/api/v1/agents/:id' };
  expect(sampleValue(samples, 'agentplane_http_request_duration_seconds_count', { ...byId, status: '200' })).toBe(1);
  expect(sampleValue(samples, 'agentplane_http_request_duration_seconds_count', { ...byId, status: '404' })).toBe(1);
});

it("continues a caller's trace from its traceparent", () => {
  const [continued] = spans.filter((span) => span.traceId === CALLER_TRACE);
  expect(continued).toMatchObject({ name: 'GET /api/v1/agents/:id', parentSpanId: CALLER_SPAN });
});

it('traces the publish of a write as a child of its request', () => {
  const [create] = spans.filter((span) => span.name === 'POST /api/v1/agents/');
  const publishes = spans.filter((span) => span.name === 'publish engine_configs');
  expect(create?.attributes['http.response.status_code']).toBe(201);
  expect(publishes.find((span) => span.parentSpanId === create?.spanId)).toMatchObject({
    traceId: create?.traceId,
    attributes: { 'agentplane.publish.agents': 1 },
  });
});

it('is off when no endpoint is set', () => {
  expect(readOperatorTracingSettings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })).toBeUndefined();
  expect(startOperatorTracing('agentplane-manager', undefined)).toBeUndefined();
});
