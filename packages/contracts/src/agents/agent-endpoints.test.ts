import { describe, expect, it } from '@jest/globals';
import { agentEndpointsOf, ZAgentEndpoints } from './agent-endpoints.js';

describe('agentEndpointsOf', () => {
  it("puts each protocol's path under a pooled agent's base URL", () => {
    const base = 'http://127.0.0.1:8001/agents/9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';
    expect(agentEndpointsOf(base)).toEqual({
      ag_ui: `${base}/agent/run`,
      mcp: `${base}/mcp`,
      a2a: `${base}/a2a`,
      agent_card: `${base}/.well-known/agent-card.json`,
    });
  });

  it('keeps the path of a dedicated engine behind a proxy, with no double slash after a trailing one', () => {
    for (const engineUrl of ['https://engine.example.com/support', 'https://engine.example.com/support/']) {
      expect(agentEndpointsOf(engineUrl)).toEqual({
        ag_ui: 'https://engine.example.com/support/agent/run',
        mcp: 'https://engine.example.com/support/mcp',
        a2a: 'https://engine.example.com/support/a2a',
        agent_card: 'https://engine.example.com/support/.well-known/agent-card.json',
      });
    }
    expect(agentEndpointsOf('http://127.0.0.1:8001/').mcp).toBe('http://127.0.0.1:8001/mcp');
  });

  it('answers what the response schema describes', () => {
    expect(ZAgentEndpoints.parse(agentEndpointsOf('http://127.0.0.1:8001'))).toEqual(
      agentEndpointsOf('http://127.0.0.1:8001'),
    );
  });
});
