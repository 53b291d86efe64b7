import { createLogger } from '@agentplane/server-kit';
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createEngineApp } from '../app.js';

const app = createEngineApp({ logger: createLogger({ name: 'test', level: 'silent' }) });

describe('GET /health', () => {
  it('answers 503 problem+json while no agent config is loaded', async () => {
    const response = await request(app).get('/health');
    expect(response.status).toBe(503);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body.detail).toBe('No agent config is loaded yet.');
  });
});
