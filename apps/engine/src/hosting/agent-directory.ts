// The agents a database-mode engine serves, as engine_placements() names them: polled every pollMs,
// and read again at once when a request names an agent not known yet (coalesced, and at most every
// REFRESH_MIN_MS), so that an agent answers as soon as it is created and a deleted or moved one stops.
// An agent is loaded at its first request (or at once, `eager`, for a dedicated engine), listens on its
// config channel while loaded, and is unloaded after `idleMs` without requests or runs. An agent with
// runs waiting for an engine is loaded by the poll that sees them.
import type { Logger } from '@agentplane/server-kit';
import { createAgentConfigReader } from '../config-source/agent-config-reader.js';
import { isRevokedCredential } from '../config-source/verify-engine-role.js';
import type { EngineDatabase, Placement } from '../database/engine-database.js';
import type { ChannelListener } from '../database/shared-listener.js';
import type { EngineServices } from './engine-services.js';
import { createServedAgent, type ServedAgent } from './served-agent.js';

export type AgentDirectory = {
  /** The agent's served object, loaded if need be; undefined when the agent is not served here. */
  open: (agentId: string) => Promise<ServedAgent | undefined>;
  /** How the last look at the placements went: the database refusing the login itself is `revoked`. */
  status: () => DirectoryStatus;
  counts: () => { placed: number; loaded: number };
  /** The agents loaded now. */
  loaded: () => ServedAgent[];
  /** Lets runs finish for up to `graceMs`, then stops the rest; then closes every agent. */
  close: (graceMs: number) => Promise<void>;
};

export type DirectoryStatus = 'ok' | 'unreachable' | 'revoked';

type Loaded = {
  served: ServedAgent;
  configListener: ChannelListener;
  check: () => Promise<void>;
  seen: () => bigint;
  lastUsed: number;
};

const REFRESH_MIN_MS = 200;

export function startAgentDirectory(options: {
  database: EngineDatabase;
  services: EngineServices;
  /** Opens the sealed configs of the agents served here: the agent's key, or the pool's. */
  configKey: string;
  pollMs: number;
  /** Unloads an agent idle this long; undefined: never (a dedicated engine). */
  idleMs: number | undefined;
  /** LISTEN on loaded agents' config channels (ENGINE_CONFIG_LISTEN); off, the poll alone follows them. */
  listen: boolean;
  /** Loads every placed agent at once instead of at its first request. */
  eager: boolean;
  logger: Logger;
}): AgentDirectory {
  const { database, services, logger } = options;
  let placements = new Map<string, Placement>();
  let status: DirectoryStatus = 'unreachable';
  let lastRefresh = 0;
  let refreshing: Promise<void> | undefined;
  let stopped = false;
  const loaded = new Map<string, Loaded>();
  const loading = new Map<string, Promise<Loaded | undefined>>();

  const unloading = new Set<Promise<void>>();
  const unload = (agentId: string, entry: Loaded, removed: boolean): Promise<void> => {
    if (loaded.get(agentId) !== entry) return Promise.resolve();
    const done = unloadNow(agentId, entry, removed).finally(() => unloading.delete(done));
    unloading.add(done);
    return done;
  };
  const unloadNow = async (agentId: string, entry: Loaded, removed: boolean) => {
    loaded.delete(agentId);
    // Every step is taken whatever the one before did (a database gone mid-drain): what is not closed
    // here (timers, MCP servers) would outlive the agent.
    const steps = [
      () => (removed ? entry.served.holder.remove() : Promise.resolve()),
      () => entry.configListener.stop(),
      () => entry.served.drain(0),
      () => entry.served.close(),
    ];
    for (const step of steps) {
      await step().catch((error: unknown) =>
        logger.warn({ err: error, agent_id: agentId }, 'while unloading an agent'),
      );
    }
    logger.debug({ agent_id: agentId, removed }, 'agent unloaded');
  };

  const load = async (placement: Placement): Promise<Loaded | undefined> => {
    const { agentId } = placement;
    const db = database.forAgent(agentId);
    const served = createServedAgent({
      agentId,
      services,
      store: { db, listenOnRuns: (handlers) => database.listener.subscribe(placement.runChannel, handlers) },
      configKey: options.configKey,
    });
    const reader = createAgentConfigReader({
      db,
      agentId,
      holder: served.holder,
      logger: services.logger.child({ agent_id: agentId }),
    });
    // A config newly applied may let queued runs start, which nothing else would tell the queue.
    const check = () => reader.check().then(() => served.wake());
    const configListener = options.listen
      ? database.listener.subscribe(placement.configChannel, {
          onNotification: () => void check(),
          onConnect: () => void check(),
        })
      : { stop: async () => {} };
    const entry: Loaded = { served, configListener, check, seen: reader.seen, lastUsed: Date.now() };
    await check();
    if (stopped || !placements.has(agentId)) {
      await configListener.stop();
      await served.close();
      return undefined;
    }
    loaded.set(agentId, entry);
    return entry;
  };

  const refresh = (): Promise<void> => {
    refreshing ??= (async () => {
      lastRefresh = Date.now();
      try {
        const next = new Map((await database.placements()).map((placement) => [placement.agentId, placement]));
        placements = next;
        status = 'ok';
      } catch (error) {
        // The login refused, or its role gone, is no outage: its agents must stop, not go on with
        // their last configs.
        status = isRevokedCredential(error) ? 'revoked' : 'unreachable';
        if (status === 'revoked') {
          logger.warn("the database refused this engine's credentials (deleted or rotated): its agents stop");
          placements = new Map();
          for (const [agentId, entry] of loaded) void unload(agentId, entry, true);
        } else {
          for (const entry of loaded.values()) entry.served.holder.setDb('unreachable');
          logger.warn({ err: error }, 'could not read the agents placed on this engine');
        }
        return;
      }
      for (const [agentId, entry] of loaded) {
        const placement = placements.get(agentId);
        if (placement === undefined) void unload(agentId, entry, true);
        // A new version, or the row gone (0): the agent's reader reads it, and sets the database status.
        else if ((placement.configVersion ?? 0n) !== entry.seen() || entry.served.holder.db() !== 'ok') {
          void entry.check();
        }
      }
      // An agent whose runs wait (queued before a restart, or left by a replica that died) is loaded
      // without waiting for a request: its queue starts them, its leases sweep the lost ones.
      for (const placement of placements.values()) {
        if (options.eager || (placement.hasWork && !loaded.has(placement.agentId))) void open(placement.agentId);
      }
    })().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  };

  let scheduled: Promise<void> | undefined;
  const lookSince = async (since: number): Promise<void> => {
    if (lastRefresh > since) return refreshing;
    scheduled ??= (async () => {
      await refreshing;
      const wait = lastRefresh + REFRESH_MIN_MS - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      scheduled = undefined;
      await refresh();
    })();
    return scheduled;
  };

  async function open(agentId: string): Promise<ServedAgent | undefined> {
    // An agent created a moment ago: a look at the placements that starts after this request came,
    // shared by every request that asks meanwhile.
    if (!loaded.has(agentId) && !loading.has(agentId) && !placements.has(agentId)) await lookSince(Date.now());
    // Checked after that wait, in which another request may have loaded the agent, or the engine stopped.
    if (stopped) return undefined;
    const present = loaded.get(agentId);
    if (present !== undefined) {
      present.lastUsed = Date.now();
      return present.served;
    }
    let pending = loading.get(agentId);
    if (pending === undefined) {
      const placement = placements.get(agentId);
      if (placement === undefined) return undefined;
      pending = load(placement).finally(() => loading.delete(agentId));
      loading.set(agentId, pending);
    }
    const entry = await pending;
    if (entry === undefined) return undefined;
    entry.lastUsed = Date.now();
    return entry.served;
  }

  const poll = setInterval(() => void refresh(), options.pollMs);
  const { idleMs } = options;
  const sweep =
    idleMs === undefined
      ? undefined
      : setInterval(
          () => {
            const cutoff = Date.now() - idleMs;
            for (const [agentId, entry] of loaded) {
              if (entry.lastUsed < cutoff && !entry.served.busy()) void unload(agentId, entry, false);
            }
          },
          Math.max(Math.min(Math.floor(idleMs / 2), 30_000), 10),
        );
  void refresh();

  return {
    open,
    status: () => status,
    counts: () => ({ placed: placements.size, loaded: loaded.size }),
    loaded: () => [...loaded.values()].map((entry) => entry.served),
    close: async (graceMs) => {
      stopped = true;
      clearInterval(poll);
      clearInterval(sweep);
      await refreshing;
      await Promise.allSettled(loading.values());
      const entries = [...loaded.entries()];
      await Promise.allSettled(entries.map(([, entry]) => entry.served.drain(graceMs)));
      await Promise.all(entries.map(([agentId, entry]) => unload(agentId, entry, false)));
      // Unloads begun before (an agent deleted or moved) finish before the database closes.
      await Promise.allSettled(unloading);
    },
  };
}
