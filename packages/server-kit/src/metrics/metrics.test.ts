import { parsePrometheusText, sampleValue, scrapeMetrics } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express, { Router } from 'express';
import { z } from 'zod';
import { AppError } from '../app-error.js';
import { parseEnv } from '../env.js';
import { createLogger } from '../logger.js';
import { notFoundHandler, problemHandler } from '../problem-handler.js';
import { type RunningServer, serve } from '../serve.js';
import { measureHttpRequests } from './http-metrics.js';
import { METRICS_ENV_FIELDS, readMetricsSettings } from './metrics-env.js';
import { type MetricsListener, startMetricsListener } from './metrics-listener.js';
import { createMetricsRegistry } from './metrics-registry.js';

const logger = createLogger({ name: 'test', level: 'silent' });
const DURATION_COUNT = 'agentplane_http_request_duration_seconds_count';

let app: RunningServer;
let metrics: MetricsListener;

beforeAll(async () => {
  const registry = createMetricsRegistry('manager');
  const api = Router();
  api.get('/items/:itemId', (req, res) => {
    if (req.params.itemId === 'missing') throw new AppError('not_found', 'No such item');
    res.json({ id: req.params.itemId });
  });
  const handler = express();
  handler.use(measureHttpRequests(registry));
  handler.use('/api', api);
  handler.use(notFoundHandler);
  handler.use(problemHandler);
  app = await serve(() => handler, { port: 0, host: '127.0.0.1', logger });
  metrics = await startMetricsListener(registry, { port: 0, host: '127.0.0.1' }, logger);
});

afterAll(async () => {
  await Promise.all([app?.shutdown(), metrics?.close()]);
});

describe('the metrics listener', () => {
  it('times requests by method, route pattern and status, never by raw URL', async () => {
    await fetch(`${app.url}/api/items/a1`);
    await fetch(`${app.url}/api/items/b2`);
    // An error leaving the mounted router keeps the mount path in the route label.
    await fetch(`${app.url}/api/items/missing`);
    await fetch(`${app.url}/nowhere/c3`);
    const samples = await scrapeMetrics(metrics.url);
    const route = { method: 'GET', route: '/api/items/:itemId', service: 'manager' };
    expect(sampleValue(samples, DURATION_COUNT, { ...route, status: '200' })).toBe(2);
    expect(sampleValue(samples, DURATION_COUNT, { ...route, status: '404' })).toBe(1);
    expect(sampleValue(samples, DURATION_COUNT, { route: 'unmatched', status: '404' })).toBe(1);
    const routes = samples.flatMap((sample) => (sample.labels.route === undefined ? [] : [sample.labels.route]));
    expect(routes.some((label) => /a1|b2|c3|missing/.test(label))).toBe(false);
  });

  it('serves the default process metrics with the agentplane_ prefix', async () => {
    const samples = await scrapeMetrics(metrics.url);
    expect(sampleValue(samples, 'agentplane_process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it('answers 404 for any other path or method', async () => {
    expect((await fetch(metrics.url.replace('/metrics', '/other'))).status).toBe(404);
    expect((await fetch(metrics.url, { method: 'POST' })).status).toBe(404);
  });

  it('is not served on the service port', async () => {
    expect((await fetch(`${app.url}/metrics`)).status).toBe(404);
  });
});

describe('the metrics settings', () => {
  const read = (env: Record<string, string>) => readMetricsSettings(parseEnv(z.object(METRICS_ENV_FIELDS), env));

  it('are off when METRICS_PORT is unset', () => {
    expect(read({})).toBeUndefined();
  });

  it('bind to loopback unless METRICS_HOST says otherwise', () => {
    expect(read({ METRICS_PORT: '9464' })).toEqual({ port: 9464, host: '127.0.0.1' });
    expect(read({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' })).toEqual({ port: 9464, host: '0.0.0.0' });
  });

  it('refuse a port that is not one, naming the variable', () => {
    expect(() => read({ METRICS_PORT: 'ninety' })).toThrow(/METRICS_PORT/);
  });
});

describe('the Prometheus text reader the tests use', () => {
  it('refuses a sample whose family has no TYPE', () => {
    expect(() => parsePrometheusText('orphan_total 1\n')).toThrow(/before its TYPE/);
  });
});
