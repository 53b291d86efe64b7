// Valid bodies for each managed resource kind and for agents, with overridable parts, and creating
// them through the API.
import { randomUUID } from 'node:crypto';
import { type TAgent, ZAgent } from '@agentplane/contracts';
import type { SignedInUser } from './manager-test-app.js';

const suffix = () => randomUUID().slice(0, 8);

export function whatsappBody(overrides: Record<string, unknown> = {}) {
  return {
    name: `whatsapp-${suffix()}`,
    integration: {
      provider: 'WHATSAPP',
      config: { accessToken: 'EAAG-secret-access-token', phoneNumberId: '1065550123', verifyToken: 'verify-me-123' },
      ...overrides,
    },
  };
}

export function mcpServerBody(overrides: Record<string, unknown> = {}) {
  return {
    name: `mcp-${suffix()}`,
    mcp_server: {
      name: 'everything',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer mcp-secret-header' },
      ...overrides,
    },
  };
}

export function ssoBody(overrides: Record<string, unknown> = {}) {
  return {
    name: `sso-${suffix()}`,
    sso: { issuer: 'https://login.example.com/realms/acme', audience: 'agents', ...overrides },
  };
}

/** An OTLP exporter by default; `overrides` replace fields of the config, or the whole of it with a provider. */
export function observabilityBody(overrides: Record<string, unknown> = {}) {
  return {
    name: `observability-${suffix()}`,
    observability: {
      provider: 'OTLP',
      endpoint: 'https://otel.example.com/v1/traces',
      headers: { 'X-Api-Key': 'otlp-secret-header' },
      ...overrides,
    },
  };
}

/** One pattern rule on the output; `overrides` replace fields of the guardrail (its rules, its description). */
export function guardrailBody(overrides: Record<string, unknown> = {}) {
  return {
    name: `guardrail-${suffix()}`,
    guardrail: {
      rules: [{ name: 'topics', kind: 'pattern', phrases: ['insider tip'], position: 'output', action: 'block' }],
      ...overrides,
    },
  };
}

export function agentBody(resources: Record<string, unknown> = {}, overrides: Record<string, unknown> = {}) {
  return {
    name: `agent-${suffix()}`,
    framework: 'LLM',
    agent: { model: { provider: 'mock', name: 'echo' } },
    resources,
    ...overrides,
  };
}

async function postCreated(user: SignedInUser, path: string, body: object): Promise<Record<string, unknown>> {
  const response = await user.agent.post(path).send(body);
  if (response.status !== 201) throw new Error(`POST ${path}: expected 201, got ${response.status} ${response.text}`);
  return response.body;
}

/** Creates through the API (`path` below the host, e.g. /api/v1/integrations/) and returns the new id. */
export async function createThroughApi(user: SignedInUser, path: string, body: object): Promise<string> {
  return (await postCreated(user, path, body)).id as string;
}

/** Creates an agent using `resources` through the API; `overrides` replace fields of its body (its framework). */
export async function createAgentThroughApi(
  user: SignedInUser,
  resources: Record<string, unknown> = {},
  overrides: Record<string, unknown> = {},
): Promise<TAgent> {
  return ZAgent.parse(await postCreated(user, '/api/v1/agents/', agentBody(resources, overrides)));
}

export async function readAgentThroughApi(user: SignedInUser, id: string): Promise<TAgent> {
  return ZAgent.parse((await user.agent.get(`/api/v1/agents/${id}`)).body);
}

/** A CUSTOM agent's body fields: an agent without a model. */
export const CUSTOM_AGENT = { framework: 'CUSTOM', agent: { module: 'agents/custom.js:create' } };

/** Guardrail rules for tests: words blocked on the output, and a model judge on the input. */
export const WORDS_RULE = {
  name: 'words',
  kind: 'pattern',
  phrases: ['insider tip'],
  position: 'output',
  action: 'block',
};
export const JUDGE_RULE = {
  name: 'judge',
  kind: 'model_judge',
  rubric: 'No legal advice',
  position: 'input',
  action: 'block',
};

/** Four pattern rules of about 40 KB each: two guardrails of them weigh more than an engine config may. */
export function heavyRules() {
  const phrases = Array.from({ length: 200 }, (_, index) => `${index}`.padEnd(200, 'x'));
  return ['a', 'b', 'c', 'd'].map((name) => ({ ...WORDS_RULE, name, phrases }));
}

export function createGuardrailThroughApi(user: SignedInUser, overrides: Record<string, unknown> = {}) {
  return createThroughApi(user, '/api/v1/guardrails/', guardrailBody(overrides));
}
