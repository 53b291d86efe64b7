// Channel test fixtures for any provider: an agent whose published config holds the given
// integrations, a database-mode engine serving it (in this process, or as a child process for tests
// that SIGKILL it) with extra env such as the providers' API base URLs, the webhook URL of each
// integration, and reads of the agent's queue rows.
import { randomUUID } from 'node:crypto';
import type { TEngineConfigInput, TIntegrationProvider } from '@agentplane/contracts';
import type { InboundMessageModel as InboundMessage } from '@agentplane/db';
import { makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import type { RunningEngine } from '../start-engine.js';
import { notifyConfigChanged, writeConfigRow } from './engine-config-rows.js';
import { makeLlmEngineConfig, type TestConfigOptions } from './engine-configs.js';
import { type EngineProcess, startServingEngineProcess } from './engine-process.js';
import { engineCredentialsFor, startDatabaseEngine, type TestEngineOptions } from './test-engine.js';

/** One integration of the agent: its provider's config as the manager would publish it (secrets in clear). */
export type ChannelIntegration = {
  provider: TIntegrationProvider;
  config: Record<string, unknown>;
  /** Enabled unless false. */
  enabled?: boolean;
  /** A fresh UUID unless given. */
  id?: string;
};

export type PublishedIntegration = ChannelIntegration & { id: string; enabled: boolean };

export type ChannelAgent = {
  agentId: string;
  workspaceId: string;
  /** The integrations of the first published config, with their ids. */
  integrations: PublishedIntegration[];
  /** The agent's config with `integrations` (by default the first published ones) and the model options. */
  configWith: (integrations?: ChannelIntegration[]) => TEngineConfigInput;
  /** Publishes a new config version for the agent, as the manager does, and tells its engines. */
  publish: (config: TEngineConfigInput) => Promise<void>;
};

const withIds = (integrations: ChannelIntegration[]): PublishedIntegration[] =>
  integrations.map((integration) => ({
    ...integration,
    id: integration.id ?? randomUUID(),
    enabled: integration.enabled ?? true,
  }));

/**
 * An agent row and its engine_configs row holding `integrations` (any providers, several of one too),
 * on the model of `options` (the mock echo model unless told otherwise: it answers "You said: …").
 */
export async function publishChannelAgent(
  database: TestDatabase,
  integrations: ChannelIntegration[],
  options: TestConfigOptions = {},
): Promise<ChannelAgent> {
  const workspace = await makeWorkspace(database.prisma);
  const agent = await makeAgent(database.prisma, workspace.id);
  const published = withIds(integrations);
  let version = 0;
  const configWith = (next: ChannelIntegration[] = published): TEngineConfigInput =>
    ({
      ...makeLlmEngineConfig({ ...options, agentId: agent.id, workspaceId: workspace.id }),
      integrations: withIds(next).map(({ id, provider, enabled, config }) => ({ id, provider, enabled, config })),
    }) as TEngineConfigInput;
  const publish = async (config: TEngineConfigInput) => {
    version++;
    await writeConfigRow(database.prisma, { agentId: agent.id, workspaceId: workspace.id }, version, config);
    await notifyConfigChanged(database.prisma, agent.id);
  };
  await publish(configWith());
  return { agentId: agent.id, workspaceId: workspace.id, integrations: published, configWith, publish };
}

/** A database-mode engine in this process for `agent`, with `env` (base URLs), once it serves the config. */
export async function startChannelEngine(
  database: TestDatabase,
  agent: Pick<ChannelAgent, 'agentId'>,
  env: Record<string, string> = {},
  options: TestEngineOptions = {},
): Promise<RunningEngine> {
  const engine = await startDatabaseEngine(database, agent.agentId, env, options);
  await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
  return engine;
}

/**
 * The same as a child process (the built dist/server.js), once it serves the config: for tests that
 * SIGKILL it. It is added to `processes`, for the suite to kill at the end.
 */
export async function startChannelEngineProcess(
  database: TestDatabase,
  agent: Pick<ChannelAgent, 'agentId'>,
  env: Record<string, string>,
  processes: EngineProcess[],
): Promise<EngineProcess> {
  return startServingEngineProcess({ ...(await engineCredentialsFor(database, agent.agentId)), ...env }, processes);
}

/** Where the provider posts deliveries for one integration: `${engineUrl}/integrations/{slug}/webhook/{id}`. */
export const channelWebhookUrl = (engineUrl: string, slug: string, integrationId: string) =>
  `${engineUrl}/integrations/${encodeURIComponent(slug)}/webhook/${encodeURIComponent(integrationId)}`;

/** The agent's queue rows, oldest first. */
export const queueRows = (database: TestDatabase, agentId: string): Promise<InboundMessage[]> =>
  database.prisma.inboundMessage.findMany({ where: { agentId }, orderBy: { createdAt: 'asc' } });

/** Waits until exactly `count` of the agent's queue rows have `status` ('done', 'failed', 'skipped', …). */
export async function waitForQueueStatus(
  database: TestDatabase,
  agentId: string,
  status: InboundMessage['status'],
  count = 1,
): Promise<InboundMessage[]> {
  let rows: InboundMessage[] = [];
  await waitUntil(
    async () => {
      rows = (await queueRows(database, agentId)).filter((row) => row.status === status);
      return rows.length === count;
    },
    { what: `${count} queued message(s) ${status}` },
  );
  return rows;
}
