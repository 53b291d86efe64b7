// File mode: one agent, its config read once from ENGINE_CONFIG_FILE, served at the root and under
// /agents/{id}. With DATABASE_URL (the agent's own engine credentials) its threads, runs and WhatsApp
// queue live in the database as in database mode; without it there are no runs records.
import { ZUuid } from '@agentplane/contracts';
import { ConfigError } from '@agentplane/server-kit';
import { Router } from 'express';
import { hasBudgets } from '../budgets/budget-refusal.js';
import { FILE_CONFIG_VERSION, readConfigFile } from '../config-source/read-config-file.js';
import { agentLogin } from '../config-source/verify-engine-role.js';
import type { EngineDatabase } from '../database/engine-database.js';
import type { EngineServices } from '../hosting/engine-services.js';
import { type AgentStore, createServedAgent, type ServedAgent } from '../hosting/served-agent.js';
import type { EngineBoot } from './engine-boot.js';
import { openVerifiedDatabase } from './open-verified-database.js';

export async function bootFileMode(path: string, services: EngineServices): Promise<EngineBoot> {
  const { env } = services;
  // A config file that does not load is a deployment mistake: stop with its reason, do not serve 503s.
  const config = await readConfigFile(path);
  // The config's own agent id, when it has one: what a database and /agents/{id} are keyed by.
  const agentId = ZUuid.safeParse((config as { agent?: { id?: unknown } }).agent?.id).data;
  const database =
    env.databaseUrl === undefined || agentId === undefined
      ? undefined
      : await openVerifiedDatabase(env.databaseUrl, agentLogin(agentId), services);
  const store = database === undefined || agentId === undefined ? undefined : await agentStore(database, agentId);
  const served = createServedAgent({ agentId: agentId ?? 'file', services, store, configKey: undefined });
  try {
    await applyConfigFile(served, config, path, store !== undefined);
    served.wake();
  } catch (error) {
    await served.close();
    await database?.end();
    throw error;
  }
  const root = Router();
  root.use(served.router);
  return {
    openAgent: async (id) => (agentId !== undefined && id === agentId ? served : undefined),
    root,
    loaded: () => [served],
    drain: async (graceMs) => {
      try {
        await served.drain(graceMs);
      } finally {
        await served.close();
      }
    },
    close: async () => {
      await database?.end();
    },
  };
}

/** The agent's handle and its run channel, which engine_placements() names for its own login. */
async function agentStore(database: EngineDatabase, agentId: string): Promise<AgentStore> {
  const placement = (await database.placements()).find((candidate) => candidate.agentId === agentId);
  if (placement === undefined) {
    await database.end();
    throw new ConfigError(`DATABASE_URL: agent ${agentId} has no engine role in this database (or it was deleted)`);
  }
  return {
    db: database.forAgent(agentId),
    listenOnRuns: (handlers) => database.listener.subscribe(placement.runChannel, handlers),
  };
}

async function applyConfigFile(served: ServedAgent, config: unknown, path: string, withDatabase: boolean) {
  const result = await served.holder.apply(config, FILE_CONFIG_VERSION);
  if (!result.applied) throw new ConfigError(`ENGINE_CONFIG_FILE ${path}: ${result.reason}`);
  // Spend is counted in the database, across replicas; without one a budget would silently not hold.
  const budgets = served.holder.current()?.config.budgets;
  if (!withDatabase && budgets !== undefined && hasBudgets(budgets)) {
    throw new ConfigError(`ENGINE_CONFIG_FILE ${path}: its budgets need DATABASE_URL, where they are counted`);
  }
}
