// The snapshots of the agent versions that queued runs are pinned to (an experiment's), other than the
// one served: built at the first such run from that version's config, shared by the version's runs
// while any uses it, and retired after `idleMs` without one, so that an experiment's runs of a version
// share one set of MCP connections and a finished experiment holds nothing. At most `max` versions are
// kept per agent; when all of them are in use, a run of yet another version builds a snapshot of its
// own, closed when it ends, rather than wait in its slot for a version's runs to finish.
import type { TEngineConfig } from '@agentplane/contracts';
import { describeLoadFailure } from '../agents/create-agent-runtime.js';
import { VersionUnavailable } from '../config-source/read-pinned-config.js';
import type { AgentSnapshot } from './agent-snapshot.js';

export const PINNED_SNAPSHOTS_MAX = 4;
export const PINNED_IDLE_MS_DEFAULT = 30_000;

/** A snapshot held for one run; release it when the run ends (a second call does nothing). */
export type LeasedSnapshot = { snapshot: AgentSnapshot; release: () => void };

export type PinnedSnapshots = {
  /** The version's snapshot, leased; rejects with a VersionUnavailable naming the version when there is none to have. */
  acquire: (version: number) => Promise<LeasedSnapshot>;
  /** The versions kept now. */
  versions: () => number[];
  /** Retires every snapshot kept (one still leased closes when its run releases it); acquire refuses from now on. */
  close: () => Promise<void>;
};

type Entry = { snapshot: Promise<AgentSnapshot>; users: number; idle: NodeJS.Timeout | undefined };

export type PinnedSnapshotsOptions = {
  /** The version's config, or a VersionUnavailable (read-pinned-config.ts). */
  readConfig: (version: number) => Promise<TEngineConfig>;
  /** Builds a snapshot as the served agent's are built: the same dependencies, the same budgets ledger. */
  buildSnapshot: (config: TEngineConfig, version: number) => Promise<AgentSnapshot>;
  /** How long a version no run uses is kept (ENGINE_PINNED_IDLE_MS). */
  idleMs: number;
  max?: number;
};

export function createPinnedSnapshots(options: PinnedSnapshotsOptions): PinnedSnapshots {
  const { idleMs, max = PINNED_SNAPSHOTS_MAX } = options;
  const entries = new Map<number, Entry>();
  let closed = false;

  // A snapshot whose runtime did not load runs nothing: it is closed, not kept.
  const build = async (version: number): Promise<AgentSnapshot> => {
    const config = await options.readConfig(version);
    const snapshot = await options.buildSnapshot(config, version).catch((error: unknown) => {
      throw new VersionUnavailable(`Agent version ${version} could not be loaded: ${(error as Error).message}`);
    });
    if (snapshot.runtime !== undefined) return snapshot;
    await snapshot.retire();
    throw new VersionUnavailable(
      `Agent version ${version} could not be loaded: ${describeLoadFailure(snapshot.loadFailure)}`,
    );
  };

  const retire = async (version: number, entry: Entry): Promise<void> => {
    if (entries.get(version) !== entry) return;
    entries.delete(version);
    clearTimeout(entry.idle);
    await entry.snapshot.then(
      (snapshot) => snapshot.retire(),
      () => undefined,
    );
  };

  // Room for one more version: an idle one, the longest kept first, goes if need be.
  const makeRoom = (): boolean => {
    if (entries.size < max) return true;
    const idle = [...entries].find(([, entry]) => entry.users === 0);
    if (idle === undefined) return false;
    void retire(...idle);
    return true;
  };

  const ownSnapshot = async (version: number): Promise<LeasedSnapshot> => {
    const snapshot = await build(version);
    const release = snapshot.lease();
    // Retired at once: it closes when its one run releases it.
    void snapshot.retire();
    return { snapshot, release };
  };

  const entryFor = (version: number): Entry | undefined => {
    const kept = entries.get(version);
    if (kept !== undefined || !makeRoom()) return kept;
    const entry: Entry = { snapshot: build(version), users: 0, idle: undefined };
    entries.set(version, entry);
    // A version that could not be built is not kept: the next run reads its row again.
    entry.snapshot.catch(() => {
      if (entries.get(version) === entry) entries.delete(version);
    });
    return entry;
  };

  const stopping = (version: number) =>
    new VersionUnavailable(`Agent version ${version} is not available: the engine is stopping.`);

  return {
    acquire: async (version) => {
      if (closed) throw stopping(version);
      const entry = entryFor(version);
      if (entry === undefined) return ownSnapshot(version);
      // Counted before the wait: the idle timer is off while a run waits for the snapshot.
      entry.users++;
      clearTimeout(entry.idle);
      entry.idle = undefined;
      const leaveEntry = () => {
        entry.users--;
        if (entry.users > 0 || entries.get(version) !== entry) return;
        entry.idle = setTimeout(() => void retire(version, entry), idleMs);
        entry.idle.unref();
      };
      let snapshot: AgentSnapshot;
      try {
        snapshot = await entry.snapshot;
      } catch (error) {
        leaveEntry();
        throw error;
      }
      // Closed while it was being built: it is retired, and this run does not start on it.
      if (closed) {
        leaveEntry();
        throw stopping(version);
      }
      const release = snapshot.lease();
      let released = false;
      return {
        snapshot,
        release: () => {
          if (released) return;
          released = true;
          release();
          leaveEntry();
        },
      };
    },
    versions: () => [...entries.keys()],
    close: async () => {
      closed = true;
      await Promise.all([...entries].map(([version, entry]) => retire(version, entry)));
    },
  };
}
