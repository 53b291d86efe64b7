import { PassThrough } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { startManagerTestApp } from '../testing/manager-test-app.js';
import { runOpenApi } from './openapi.js';

describe('agentplane-manager openapi', () => {
  it('prints, without a database, the document the running manager serves', async () => {
    const stdout = new PassThrough();
    let printed = '';
    stdout.on('data', (chunk) => (printed += chunk));
    const io = { stdin: new PassThrough(), stdout, stderr: new PassThrough(), env: {} };
    expect(await runOpenApi([], io)).toBe(0);
    const document = JSON.parse(printed);
    const ctx = await startManagerTestApp();
    try {
      const served = (await request(ctx.app).get('/api/v1/openapi.json')).body;
      expect(Object.keys(document.paths).sort()).toEqual(Object.keys(served.paths).sort());
      expect(document.paths['/api/v1/agents/{id}'].patch.operationId).toBe('updateAgent');
    } finally {
      await ctx.close();
    }
  });
});
