// Database mode: the engine serves the agents its login is placed with, as engine_placements() says: a
// pool's (ENGINE_POOL: many, loaded at first request, unloaded when idle) or one agent's (AGENT_ID: a
// dedicated engine, the interface spec's one service per agent, its API also at the root).
import { AppError } from '@agentplane/server-kit';
import { Router } from 'express';
import { agentLogin, poolLogin } from '../config-source/verify-engine-role.js';
import type { ConfigSourceSettings } from '../env.js';
import { type DirectoryStatus, startAgentDirectory } from '../hosting/agent-directory.js';
import type { EngineServices } from '../hosting/engine-services.js';
import type { EngineBoot } from './engine-boot.js';
import { openVerifiedDatabase } from './open-verified-database.js';

// Why a dedicated engine serves nothing, by the state of its last look at the database.
const UNSERVED: Record<DirectoryStatus, string> = {
  ok: 'The agent this engine runs was deleted, or moved to an engine pool.',
  unreachable: 'No agent config is loaded yet: the database is unreachable.',
  revoked: 'The agent this engine runs was deleted, or its database credentials were revoked.',
};

type DatabaseSource = Exclude<ConfigSourceSettings, { kind: 'file' }>;

export async function bootDatabaseMode(source: DatabaseSource, services: EngineServices): Promise<EngineBoot> {
  const { logger } = services;
  const login = source.kind === 'pool' ? poolLogin(source.pool) : agentLogin(source.agentId);
  const database = await openVerifiedDatabase(source.databaseUrl, login, services);
  const directory = startAgentDirectory({
    database,
    services,
    configKey: source.kind === 'pool' ? source.poolKey : source.agentKey,
    pollMs: source.pollMs,
    listen: source.listen,
    idleMs: source.kind === 'pool' ? source.idleMs : undefined,
    eager: source.kind === 'database',
    logger,
  });
  const root = Router();
  if (source.kind === 'pool') {
    root.get('/health', (_req, res) => {
      const status = directory.status();
      res.status(status === 'ok' ? 200 : 503).json({
        status: status === 'ok' ? 'ok' : 'degraded',
        db: status === 'ok' ? 'ok' : 'unreachable',
        pool: source.pool,
        agents: directory.counts(),
      });
    });
  } else {
    const { agentId } = source;
    root.use(async (req, res, next) => {
      const served = await directory.open(agentId);
      if (served === undefined) throw new AppError('service_unavailable', UNSERVED[directory.status()]);
      served.router(req, res, next);
    });
  }
  return {
    openAgent: directory.open,
    root,
    loaded: directory.loaded,
    drain: (graceMs) => directory.close(graceMs),
    close: () => database.end(),
  };
}
