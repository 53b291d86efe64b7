// Starts a real engine in this process on a loopback port, in file or database mode.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type EngineCredentialsEnv, issueTestEngineCredentials, type TestDatabase } from '@agentplane/db/testing';
import { createLogger, LOOPBACK_EGRESS_ALLOW } from '@agentplane/server-kit';
import type { DestinationStream } from 'pino';
import type { AnyChannelAdapter } from '../channels/channel-adapter.js';
import type { ConfigHolder } from '../config-source/config-holder.js';
import { loadEngineEnv } from '../env.js';
import { type RunningEngine, startEngine } from '../start-engine.js';

export type TestEngineOptions = {
  env?: Record<string, string>;
  keepaliveMs?: number;
  logLevel?: string;
  /** Where the engine's log lines go (see captured-logs.ts); the level is then `info` unless logLevel says. */
  logDestination?: DestinationStream;
  /** Fakes of providers, in place of the engine's adapters for them (channel tests). */
  channelAdapters?: AnyChannelAdapter[];
};

// Test peers listen on loopback, so the egress policy allows it here (pnpm start does not); tests of the
// policy itself set ENGINE_EGRESS_ALLOW to '' (unset).
export const BASE_ENV = {
  PORT: '0',
  HOST: '127.0.0.1',
  ENGINE_AUTH: 'disabled',
  ENGINE_EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW,
};

export async function startTestEngine(
  env: Record<string, string>,
  options: TestEngineOptions = {},
): Promise<RunningEngine> {
  const logger = createLogger({
    name: 'engine-test',
    level: options.logLevel ?? (options.logDestination ? 'info' : (process.env.TEST_LOG_LEVEL ?? 'silent')),
    ...(options.logDestination === undefined ? {} : { destination: options.logDestination }),
  });
  const engine = await startEngine(loadEngineEnv({ ...BASE_ENV, ...env, ...options.env }), {
    logger,
    ...(options.keepaliveMs === undefined ? {} : { keepaliveMs: options.keepaliveMs }),
    ...(options.channelAdapters === undefined ? {} : { channelAdapters: options.channelAdapters }),
  });
  // fetch opens a spare connection after a cancelled stream and keeps it, unused, for its keep-alive
  // time, which graceful close waits out. A test ends with nothing in flight, so it cuts them.
  const sockets = new Set<Socket>();
  engine.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return {
    ...engine,
    shutdown: async () => {
      const stopping = engine.shutdown();
      for (const socket of sockets) socket.destroy();
      await stopping;
    },
  };
}

// Issued once per agent and database: issuing again rotates the password under engines already running.
const issued = new Map<string, Promise<EngineCredentialsEnv>>();

/** The agent's engine credentials (its own role, its key), as the manager issues them. */
export function engineCredentialsFor(database: TestDatabase, agentId: string): Promise<EngineCredentialsEnv> {
  const key = `${database.name}/${agentId}`;
  let credentials = issued.get(key);
  if (credentials === undefined) {
    credentials = issueTestEngineCredentials(database, agentId);
    issued.set(key, credentials);
  }
  return credentials;
}

/** An engine in database mode for `agentId`, logged in as the agent's own role with its key. */
export async function startDatabaseEngine(
  database: TestDatabase,
  agentId: string,
  env: Record<string, string> = {},
  options: TestEngineOptions = {},
): Promise<RunningEngine> {
  return startTestEngine({ ...(await engineCredentialsFor(database, agentId)), ...env }, options);
}

/** Writes `config` as agent.json in a directory of its own, which the caller removes. */
export async function writeConfigFile(config: unknown): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'engine-config-'));
  const file = path.join(dir, 'agent.json');
  await writeFile(file, JSON.stringify(config, null, 2));
  return file;
}

/** An engine serving `config` from a JSON file (no database), with auth disabled unless options.env says otherwise. */
export async function startFileEngine(config: unknown, options: TestEngineOptions = {}): Promise<RunningEngine> {
  const file = await writeConfigFile(config);
  const engine = await startTestEngine({ ENGINE_CONFIG_FILE: file }, options);
  return {
    ...engine,
    shutdown: async () => {
      await engine.shutdown();
      await rm(path.dirname(file), { recursive: true, force: true });
    },
  };
}

/** The config holder of an engine that serves one agent (file mode, or dedicated once loaded). */
export function soleHolder(engine: RunningEngine): ConfigHolder {
  const [holder, ...others] = engine.holders();
  if (holder === undefined || others.length > 0) throw new Error('the engine does not serve exactly one agent');
  return holder;
}
