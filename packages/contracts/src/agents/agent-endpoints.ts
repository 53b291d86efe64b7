// Where an agent answers each protocol, from the base URL its engine serves it at (its engine_url):
// one derivation for the manager's responses and the console, so that they never disagree.
import { z } from 'zod';
import { A2A_ENDPOINT_PATH, AGENT_CARD_PATH } from '../a2a/agent-card.js';

export const ZAgentEndpoints = z
  .strictObject({
    ag_ui: z.string().meta({ description: 'AG-UI: POST a RunAgentInput, read server-sent events' }),
    mcp: z.string().meta({ description: 'MCP over streamable HTTP: the agent as one tool' }),
    a2a: z.string().meta({ description: 'A2A 1.0 JSON-RPC (SendMessage, SendStreamingMessage, GetTask, …)' }),
    agent_card: z.string().meta({ description: "The A2A agent card (the agent's name, skills, security schemes)" }),
  })
  .meta({
    id: 'AgentEndpoints',
    description: 'Where to reach the agent over AG-UI, MCP and A2A; every one takes the same bearer tokens',
    examples: [
      {
        ag_ui: 'http://127.0.0.1:8001/agents/9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d/agent/run',
        mcp: 'http://127.0.0.1:8001/agents/9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d/mcp',
        a2a: 'http://127.0.0.1:8001/agents/9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d/a2a',
        agent_card: 'http://127.0.0.1:8001/agents/9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d/.well-known/agent-card.json',
      },
    ],
  });
export type TAgentEndpoints = z.infer<typeof ZAgentEndpoints>;

/** The endpoints under an engine_url; a trailing slash on it (allowed when it is set) makes no double one. */
export function agentEndpointsOf(engineUrl: string): TAgentEndpoints {
  const base = engineUrl.replace(/\/+$/, '');
  return {
    ag_ui: `${base}/agent/run`,
    mcp: `${base}/mcp`,
    a2a: `${base}${A2A_ENDPOINT_PATH}`,
    agent_card: `${base}${AGENT_CARD_PATH}`,
  };
}
