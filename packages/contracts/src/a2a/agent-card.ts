// An agent's A2A 1.0 card, in its JSON wire form (the A2A specification's AgentCard). The engine serves
// it at {agent base}/.well-known/agent-card.json and the manager at GET /api/v1/agents/{id}/card: both
// build it here, from the same facts, so the two cannot disagree.
import { z } from 'zod';

/** The A2A protocol version the engine's JSON-RPC endpoint speaks. */
export const A2A_PROTOCOL_VERSION = '1.0';
/** Where an agent's card is served, below its base URL. */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';
/** Where an agent's A2A JSON-RPC endpoint is, below its base URL. */
export const A2A_ENDPOINT_PATH = '/a2a';
/** The media type of what an agent reads and answers: its runs take and give text. */
export const A2A_TEXT_MODE = 'text/plain';
/** The name of the card's bearer scheme; the OpenID Connect ones are `oidc-1`, `oidc-2`… in issuer order. */
export const A2A_BEARER_SCHEME = 'bearer';

const ZStringList = z.object({ list: z.array(z.string()) });

const ZSecurityScheme = z.union([
  z.object({
    httpAuthSecurityScheme: z.object({ scheme: z.string(), bearerFormat: z.string(), description: z.string() }),
  }),
  z.object({ openIdConnectSecurityScheme: z.object({ openIdConnectUrl: z.string(), description: z.string() }) }),
]);

export const ZAgentCard = z
  .object({
    name: z.string(),
    description: z.string(),
    supportedInterfaces: z.array(
      z.object({ url: z.string(), protocolBinding: z.literal('JSONRPC'), protocolVersion: z.string() }),
    ),
    version: z.string().describe("The agent's engine config version"),
    capabilities: z.object({ streaming: z.boolean(), pushNotifications: z.boolean() }),
    securitySchemes: z.record(z.string(), ZSecurityScheme),
    securityRequirements: z
      .array(z.object({ schemes: z.record(z.string(), ZStringList) }))
      .describe('Any one of them is enough: a bearer token from one of the accepted issuers'),
    defaultInputModes: z.array(z.string()),
    defaultOutputModes: z.array(z.string()),
    skills: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        description: z.string(),
        tags: z.array(z.string()),
        inputModes: z.array(z.string()),
        outputModes: z.array(z.string()),
      }),
    ),
  })
  .meta({ id: 'AgentCard', description: "An agent's A2A 1.0 agent card" });
export type TAgentCard = z.output<typeof ZAgentCard>;

export type AgentCardFacts = {
  agent: { id: string; name: string; description?: string | null | undefined; framework: string };
  /** The engine config version the card describes. */
  configVersion: number;
  /** Where the agent's engine API is: a dedicated engine's root, or `{pool URL}/agents/{id}`. */
  baseUrl: string;
  /** The issuers whose bearer tokens the engine accepts for the agent; none when its auth is off. */
  issuers: readonly string[];
};

const discoveryUrl = (issuer: string) => `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;

function securityOf(issuers: readonly string[]): Pick<TAgentCard, 'securitySchemes' | 'securityRequirements'> {
  if (issuers.length === 0) return { securitySchemes: {}, securityRequirements: [] };
  const schemes: TAgentCard['securitySchemes'] = {
    [A2A_BEARER_SCHEME]: {
      httpAuthSecurityScheme: {
        scheme: 'Bearer',
        bearerFormat: 'JWT',
        description: `A JWT signed by one of these issuers: ${issuers.join(', ')}`,
      },
    },
  };
  issuers.forEach((issuer, index) => {
    schemes[`oidc-${index + 1}`] = {
      openIdConnectSecurityScheme: { openIdConnectUrl: discoveryUrl(issuer), description: `Tokens from ${issuer}` },
    };
  });
  return {
    securitySchemes: schemes,
    securityRequirements: Object.keys(schemes).map((name) => ({ schemes: { [name]: { list: [] } } })),
  };
}

/** The agent's A2A card: one skill (the agent itself), streaming, text in and out, bearer/OIDC security. */
export function buildAgentCard(facts: AgentCardFacts): TAgentCard {
  const { agent } = facts;
  const base = facts.baseUrl.replace(/\/+$/, '');
  const description = agent.description?.trim() || `The Agentplane agent "${agent.name}".`;
  return {
    name: agent.name,
    description,
    supportedInterfaces: [
      { url: `${base}${A2A_ENDPOINT_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: A2A_PROTOCOL_VERSION },
    ],
    version: String(facts.configVersion),
    capabilities: { streaming: true, pushNotifications: false },
    ...securityOf(facts.issuers),
    defaultInputModes: [A2A_TEXT_MODE],
    defaultOutputModes: [A2A_TEXT_MODE],
    skills: [
      {
        id: `agent-${agent.id}`,
        name: agent.name,
        description,
        tags: ['agentplane', agent.framework.toLowerCase()],
        inputModes: [A2A_TEXT_MODE],
        outputModes: [A2A_TEXT_MODE],
      },
    ],
  };
}
