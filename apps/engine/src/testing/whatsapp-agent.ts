// WhatsApp test fixtures: an agent with a WHATSAPP integration published in the database, its engine,
// Cloud API webhook payloads, and a poster that signs them the way Meta does.
import { randomUUID } from 'node:crypto';
import type { TEngineConfigInput } from '@agentplane/contracts';
import { makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import type { RunningEngine } from '../start-engine.js';
import { signBody } from '../whatsapp/verify-webhook.js';
import { WHATSAPP_WEBHOOK_PATH } from '../whatsapp/whatsapp-router.js';
import { notifyConfigChanged, writeConfigRow } from './engine-config-rows.js';
import { makeLlmEngineConfig, type TestConfigOptions } from './engine-configs.js';
import type { FakeGraphApi } from './fake-graph-api.js';
import { startDatabaseEngine, type TestEngineOptions } from './test-engine.js';

export type WhatsAppTestConfig = {
  accessToken: string;
  phoneNumberId: string;
  verifyToken: string;
  apiVersion: string;
  appSecret?: string;
  allowUnsignedDeliveries?: boolean;
};

/** A config with an app secret, as deliveries need; pass `appSecret: undefined` for one without. */
export function makeWhatsAppConfig(overrides: Partial<WhatsAppTestConfig> = {}): WhatsAppTestConfig {
  return {
    accessToken: `access-${randomUUID()}`,
    phoneNumberId: String(Math.floor(Math.random() * 1e12)),
    verifyToken: `verify-${randomUUID()}`,
    apiVersion: 'v21.0',
    appSecret: `app-secret-${randomUUID()}`,
    ...overrides,
  };
}

export function withWhatsApp(
  config: TEngineConfigInput,
  whatsapp: WhatsAppTestConfig,
  { enabled = true, id = randomUUID() }: { enabled?: boolean; id?: string } = {},
): TEngineConfigInput {
  return { ...config, integrations: [{ id, provider: 'WHATSAPP', enabled, config: whatsapp }] };
}

export type PublishedAgent = {
  agentId: string;
  workspaceId: string;
  /** Publishes a new config version for the agent, as the manager does. */
  publish: (config: TEngineConfigInput) => Promise<void>;
  configWith: (whatsapp: WhatsAppTestConfig, options?: { enabled?: boolean }) => TEngineConfigInput;
};

/** An agent row with its engine_configs row holding `whatsapp`, on the given model. */
export async function publishWhatsAppAgent(
  database: TestDatabase,
  whatsapp: WhatsAppTestConfig,
  options: TestConfigOptions & { enabled?: boolean } = {},
): Promise<PublishedAgent> {
  const workspace = await makeWorkspace(database.prisma);
  const agent = await makeAgent(database.prisma, workspace.id);
  const integrationId = randomUUID();
  let version = 0;
  const configWith = (next: WhatsAppTestConfig, { enabled = options.enabled ?? true } = {}) =>
    withWhatsApp(makeLlmEngineConfig({ ...options, agentId: agent.id, workspaceId: workspace.id }), next, {
      enabled,
      id: integrationId,
    });
  const publish = async (config: TEngineConfigInput) => {
    version++;
    await writeConfigRow(database.prisma, { agentId: agent.id, workspaceId: workspace.id }, version, config);
    await notifyConfigChanged(database.prisma, agent.id);
  };
  await publish(configWith(whatsapp));
  return { agentId: agent.id, workspaceId: workspace.id, publish, configWith };
}

/** A database-mode engine for `agent` that replies through `graph`, once it serves its config. */
export async function startWhatsAppEngine(
  database: TestDatabase,
  agent: PublishedAgent,
  graph: FakeGraphApi,
  env: Record<string, string> = {},
  options: TestEngineOptions = {},
): Promise<RunningEngine> {
  const engine = await startDatabaseEngine(
    database,
    agent.agentId,
    { GRAPH_API_BASE_URL: graph.baseUrl, ...env },
    options,
  );
  await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
  return engine;
}

export type TextMessage = { from: string; id?: string; text?: string; type?: string };

/** A Cloud API delivery of messages to `phoneNumberId`, shaped as Meta sends it. */
export function makeWebhookPayload(phoneNumberId: string, messages: TextMessage[], statuses: unknown[] = []) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA_ID',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550000000', phone_number_id: phoneNumberId },
              contacts: messages.map((message) => ({ profile: { name: 'Test' }, wa_id: message.from })),
              messages: messages.map((message) => ({
                from: message.from,
                id: message.id ?? `wamid.${randomUUID()}`,
                timestamp: String(Math.floor(Date.now() / 1000)),
                type: message.type ?? 'text',
                ...((message.type ?? 'text') === 'text' ? { text: { body: message.text ?? 'hello' } } : {}),
                ...(message.type === 'image' ? { image: { id: 'media-1', mime_type: 'image/jpeg' } } : {}),
              })),
              ...(statuses.length > 0 ? { statuses } : {}),
            },
          },
        ],
      },
    ],
  };
}

/** POSTs a delivery, signed with `appSecret` when given (or with an explicit header). */
export function postWebhook(
  engineUrl: string,
  body: unknown,
  { appSecret, signature }: { appSecret?: string; signature?: string } = {},
): Promise<Response> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (signature !== undefined) headers['X-Hub-Signature-256'] = signature;
  else if (appSecret !== undefined) headers['X-Hub-Signature-256'] = signBody(raw, appSecret);
  return fetch(`${engineUrl}${WHATSAPP_WEBHOOK_PATH}`, { method: 'POST', headers, body: raw });
}

export function verifyUrl(engineUrl: string, params: Record<string, string>): string {
  return `${engineUrl}${WHATSAPP_WEBHOOK_PATH}?${new URLSearchParams(params)}`;
}

/** Meta's subscription handshake with `verifyToken`, expecting `challenge` back. */
export function verifyHandshake(engineUrl: string, verifyToken: string, challenge: string): Promise<Response> {
  return fetch(
    verifyUrl(engineUrl, { 'hub.mode': 'subscribe', 'hub.verify_token': verifyToken, 'hub.challenge': challenge }),
  );
}
