import { describe, expect, it } from '@jest/globals';
import { A2A_PROTOCOL_VERSION, buildAgentCard, ZAgentCard } from './agent-card.js';

const agent = { id: '0b6f6f3e-6d1c-4f55-9b53-0c1c8e0b2a11', name: 'support', framework: 'LLM' };
const facts = { agent, configVersion: 7, baseUrl: 'https://engines.example.com/agents/x/', issuers: [] };

describe('buildAgentCard', () => {
  it("names the agent's JSON-RPC endpoint below its base URL, its config version and one skill", () => {
    const card = buildAgentCard({ ...facts, agent: { ...agent, description: 'Answers customers' } });
    expect(ZAgentCard.parse(card)).toEqual(card);
    expect(card.supportedInterfaces).toEqual([
      {
        url: 'https://engines.example.com/agents/x/a2a',
        protocolBinding: 'JSONRPC',
        protocolVersion: A2A_PROTOCOL_VERSION,
      },
    ]);
    expect(card).toMatchObject({
      name: 'support',
      description: 'Answers customers',
      version: '7',
      capabilities: { streaming: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
    });
    expect(card.skills).toEqual([
      expect.objectContaining({ id: `agent-${agent.id}`, name: 'support', tags: ['agentplane', 'llm'] }),
    ]);
  });

  it('says what the agent is when it has no description', () => {
    for (const description of [undefined, null, '  ']) {
      expect(buildAgentCard({ ...facts, agent: { ...agent, description } }).description).toBe(
        'The Agentplane agent "support".',
      );
    }
  });

  it('names every accepted issuer: a bearer scheme and one OpenID Connect scheme each, any one enough', () => {
    const issuers = ['https://manager.example.com', 'https://login.example.com/realms/acme/'];
    const card = buildAgentCard({ ...facts, issuers });
    expect(card.securitySchemes).toEqual({
      bearer: {
        httpAuthSecurityScheme: {
          scheme: 'Bearer',
          bearerFormat: 'JWT',
          description: `A JWT signed by one of these issuers: ${issuers.join(', ')}`,
        },
      },
      'oidc-1': {
        openIdConnectSecurityScheme: {
          openIdConnectUrl: 'https://manager.example.com/.well-known/openid-configuration',
          description: 'Tokens from https://manager.example.com',
        },
      },
      'oidc-2': {
        openIdConnectSecurityScheme: {
          openIdConnectUrl: 'https://login.example.com/realms/acme/.well-known/openid-configuration',
          description: 'Tokens from https://login.example.com/realms/acme/',
        },
      },
    });
    expect(card.securityRequirements).toEqual([
      { schemes: { bearer: { list: [] } } },
      { schemes: { 'oidc-1': { list: [] } } },
      { schemes: { 'oidc-2': { list: [] } } },
    ]);
  });

  it('asks for no credentials when the engine accepts calls without a token', () => {
    const card = buildAgentCard(facts);
    expect(card.securitySchemes).toEqual({});
    expect(card.securityRequirements).toEqual([]);
  });
});
