import { ConfigError } from '@agentplane/server-kit';
import { describe, expect, it } from '@jest/globals';
import { loadEngineConfig } from './config.js';

describe('loadEngineConfig', () => {
  it('defaults the port to 8001', () => {
    expect(loadEngineConfig({}).port).toBe(8001);
  });

  it('rejects an AGENT_ID that is not a UUID, naming it', () => {
    expect(() => loadEngineConfig({ AGENT_ID: 'demo' })).toThrow(ConfigError);
    expect(() => loadEngineConfig({ AGENT_ID: 'demo' })).toThrow(/AGENT_ID/);
  });
});
