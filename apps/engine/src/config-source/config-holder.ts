// The engine's current config, swapped atomically. Applies run one at a time; an invalid config is
// logged and dropped while the previous one keeps serving; a replaced snapshot is retired, which
// closes it once the runs that started on it are done.
import type { TEngineConfig } from '@agentplane/contracts';
import type { Logger } from '@agentplane/server-kit';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';
import type { SnapshotSource } from '../snapshot/use-snapshot.js';
import { EngineConfigError, parseEngineConfig, type SecretOpener } from './parse-engine-config.js';

export type DbStatus = 'ok' | 'unreachable' | 'not_used';
export type ConfigPhase = 'loading' | 'ready' | 'deleted';
export type ApplyResult = { applied: true } | { applied: false; reason: string };
export type ConfigRejection = { version: number; reason: string };

export type ConfigHolder = SnapshotSource & {
  phase: () => ConfigPhase;
  /** The newest config version that was rejected, while no newer one has been applied. */
  rejection: () => ConfigRejection | undefined;
  db: () => DbStatus;
  /** When the served config last changed (applied, or removed with the agent), in epoch ms; undefined before the first. */
  changedAt: () => number | undefined;
  setDb: (status: DbStatus) => void;
  apply: (raw: unknown, version: number) => Promise<ApplyResult>;
  /** The agent's row is gone: runs answer 503 from now on. */
  remove: () => Promise<void>;
  close: () => Promise<void>;
};

export type ConfigHolderOptions = {
  openSecret: SecretOpener;
  buildSnapshot: (config: TEngineConfig, version: number) => Promise<AgentSnapshot>;
  logger: Logger;
  db: DbStatus;
};

export function createConfigHolder({ openSecret, buildSnapshot, logger, db }: ConfigHolderOptions): ConfigHolder {
  let snapshot: AgentSnapshot | undefined;
  let phase: ConfigPhase = 'loading';
  let dbStatus = db;
  let rejection: ConfigRejection | undefined;
  let changedAt: number | undefined;
  let closed = false;
  let queue: Promise<unknown> = Promise.resolve();

  const enqueue = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work);
    queue = result.catch(() => undefined);
    return result;
  };

  const swap = (next: AgentSnapshot | undefined) => {
    const previous = snapshot;
    snapshot = next;
    changedAt = Date.now();
    phase = next === undefined ? 'deleted' : 'ready';
    void previous?.retire();
  };

  const apply = async (raw: unknown, version: number): Promise<ApplyResult> => {
    if (closed) return { applied: false, reason: 'The engine is stopping' };
    let config: TEngineConfig;
    try {
      config = parseEngineConfig(raw, openSecret);
    } catch (error) {
      if (!(error instanceof EngineConfigError)) throw error;
      logger.error(
        { version, serving: snapshot?.version ?? null, reason: error.message },
        'engine config rejected; the previous config keeps serving',
      );
      rejection = { version, reason: error.message };
      return { applied: false, reason: error.message };
    }
    const next = await buildSnapshot(config, version);
    if (closed) {
      await next.retire();
      return { applied: false, reason: 'The engine is stopping' };
    }
    swap(next);
    rejection = undefined;
    logger.info({ version, agent: config.agent.name, framework: config.agent.framework }, 'engine config applied');
    return { applied: true };
  };

  return {
    current: () => snapshot,
    unavailableReason: () => {
      if (phase === 'deleted')
        return 'The agent this engine runs was deleted, or its database credentials were revoked.';
      if (closed) return 'The engine is stopping.';
      if (rejection !== undefined) return `No agent config is loaded: version ${rejection.version} was rejected.`;
      return 'No agent config is loaded yet.';
    },
    phase: () => phase,
    rejection: () => rejection,
    db: () => dbStatus,
    changedAt: () => changedAt,
    setDb: (status) => {
      if (status !== dbStatus) logger[status === 'ok' ? 'info' : 'warn']({ db: status }, 'database status changed');
      dbStatus = status;
    },
    apply: (raw, version) => enqueue(() => apply(raw, version)),
    remove: () =>
      enqueue(async () => {
        if (phase === 'deleted') return;
        logger.warn('the agent was deleted: runs are refused');
        swap(undefined);
      }),
    close: () =>
      enqueue(async () => {
        closed = true;
        const last = snapshot;
        snapshot = undefined;
        await last?.retire();
      }),
  };
}
