// Which values of a configuration are secrets, in one place: the manager encrypts them at rest and
// masks them for viewers, the engine decrypts them, and /agent/config redacts them, all by walking the
// same fields.
import type { TLlmAgentConfig } from '../agents/agent-frameworks.js';
import type { TEngineAgent, TEngineConfig } from '../engine/engine-config.js';
import type { TScorer, TScorerOf } from '../evaluations/scorer.js';
import { DISCORD_SECRET_FIELDS } from '../integrations/discord-config.js';
import { GOOGLE_CHAT_SECRET_FIELDS } from '../integrations/google-chat-config.js';
import type { TIntegrationConfig, TIntegrationProvider } from '../integrations/integration-config.js';
import { SLACK_SECRET_FIELDS } from '../integrations/slack-config.js';
import { TEAMS_SECRET_FIELDS } from '../integrations/teams-config.js';
import { TELEGRAM_SECRET_FIELDS } from '../integrations/telegram-config.js';
import { WHATSAPP_SECRET_FIELDS } from '../integrations/whatsapp-config.js';
import type { TMcpServerConfig } from '../mcp-servers/mcp-server-config.js';
import type { TObservabilityConfig } from '../observability/observability-config.js';
import { mapUrlQuerySecret } from './secret-url.js';

/** `path` locates the secret inside the object being mapped, e.g. `['config', 'accessToken']`. */
export type SecretTransform = (value: string, path: readonly string[]) => string;

const SECRET_FIELDS_BY_PROVIDER = {
  WHATSAPP: WHATSAPP_SECRET_FIELDS,
  SLACK: SLACK_SECRET_FIELDS,
  TELEGRAM: TELEGRAM_SECRET_FIELDS,
  DISCORD: DISCORD_SECRET_FIELDS,
  TEAMS: TEAMS_SECRET_FIELDS,
  GOOGLE_CHAT: GOOGLE_CHAT_SECRET_FIELDS,
} as const satisfies Record<TIntegrationProvider, readonly string[]>;

function mapValues(field: string, record: Record<string, string>, transform: SecretTransform): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, transform(value, [field, key])]));
}

export function mapIntegrationSecrets<T extends Pick<TIntegrationConfig, 'provider' | 'config'>>(
  integration: T,
  transform: SecretTransform,
): T {
  const config: Record<string, unknown> = { ...integration.config };
  for (const field of SECRET_FIELDS_BY_PROVIDER[integration.provider]) {
    const value = config[field];
    if (typeof value === 'string') config[field] = transform(value, ['config', field]);
  }
  return { ...integration, config };
}

/** Header values carry API keys and env values carry credentials, so every one of them is a secret; so is the url's query. */
export function mapMcpServerSecrets<T extends Pick<TMcpServerConfig, 'headers' | 'env' | 'url'>>(
  server: T,
  transform: SecretTransform,
): T {
  return {
    ...server,
    ...(server.url === undefined ? {} : { url: mapUrlQuerySecret(server.url, ['url'], transform) }),
    headers: mapValues('headers', server.headers, transform),
    env: mapValues('env', server.env, transform),
  };
}

/**
 * An OTLP exporter's header values (they carry the backend's API key), Langfuse's secret key, Phoenix's
 * API key, and the query of an OTLP or Phoenix endpoint.
 */
export function mapObservabilitySecrets(
  config: TObservabilityConfig,
  transform: SecretTransform,
): TObservabilityConfig {
  switch (config.provider) {
    case 'OTLP':
      return {
        ...config,
        endpoint: mapUrlQuerySecret(config.endpoint, ['endpoint'], transform),
        headers: mapValues('headers', config.headers, transform),
      };
    case 'LANGFUSE':
      return { ...config, secret_key: transform(config.secret_key, ['secret_key']) };
    case 'PHOENIX': {
      const endpoint = mapUrlQuerySecret(config.endpoint, ['endpoint'], transform);
      return config.api_key === undefined
        ? { ...config, endpoint }
        : { ...config, endpoint, api_key: transform(config.api_key, ['api_key']) };
    }
  }
}

/** An LLM agent's `model.apiKey`, and the query of its `model.baseUrl`. */
export function mapLlmConfigSecrets<T extends Pick<TLlmAgentConfig, 'model'>>(
  config: T,
  transform: SecretTransform,
): T {
  const { apiKey, baseUrl } = config.model;
  if (apiKey === undefined && baseUrl === undefined) return config;
  return {
    ...config,
    model: {
      ...config.model,
      ...(baseUrl === undefined ? {} : { baseUrl: mapUrlQuerySecret(baseUrl, ['model', 'baseUrl'], transform) }),
      ...(apiKey === undefined ? {} : { apiKey: transform(apiKey, ['model', 'apiKey']) }),
    },
  };
}

/** A scorer's secrets: a model judge's `model.apiKey` and the query of its `model.baseUrl`. */
export function mapScorerSecrets<T extends TScorer>(scorer: T, transform: SecretTransform): T {
  // Narrowing by kind does not narrow T itself: the judge's model is an LLM agent's model in shape.
  return scorer.kind === 'model_judge'
    ? (mapLlmConfigSecrets(scorer as TScorerOf<'model_judge'>, transform) as T)
    : scorer;
}

/** The secrets of an agent's stored framework config: only LLM configs hold one. */
export function mapAgentConfigSecrets<T>(framework: string, config: T, transform: SecretTransform): T {
  return framework === 'LLM' ? (mapLlmConfigSecrets(config as TLlmAgentConfig, transform) as T) : config;
}

function mapEngineAgentSecrets(agent: TEngineAgent, transform: SecretTransform): TEngineAgent {
  return agent.framework === 'LLM' ? { ...agent, config: mapLlmConfigSecrets(agent.config, transform) } : agent;
}

/** Paths given to `transform` are relative to the agent's config, the MCP server, the integration or the observability config. */
export function mapEngineConfigSecrets(config: TEngineConfig, transform: SecretTransform): TEngineConfig {
  return {
    ...config,
    agent: mapEngineAgentSecrets(config.agent, transform),
    mcp_servers: config.mcp_servers.map((server) => mapMcpServerSecrets(server, transform)),
    integrations: config.integrations.map((integration) => mapIntegrationSecrets(integration, transform)),
    observability: config.observability && mapObservabilitySecrets(config.observability, transform),
    agent_calls: config.agent_calls && {
      ...config.agent_calls,
      credential: transform(config.agent_calls.credential, ['agent_calls', 'credential']),
    },
  };
}
