// Database mode: reads the agent's engine_configs row through the agent's own handle, whenever the
// engine learns (a poll of engine_placements(), a NOTIFY on the agent's config channel) that it may
// have changed. The config itself is read only when its version is newer than the one already seen.
import type { Logger } from '@agentplane/server-kit';
import type { AgentDb } from '../database/agent-db.js';
import type { ConfigHolder } from './config-holder.js';
import { isRevokedCredential } from './verify-engine-role.js';

const READ_ROW = `
  SELECT version::text AS version, CASE WHEN version > $2::bigint THEN config END AS config
  FROM engine_configs WHERE agent_id = $1`;

export type AgentConfigReader = {
  /** Reads now, or once more right after the read in progress, which may have seen an older row. */
  check: () => Promise<void>;
  /** The newest version applied or rejected (0 before any). */
  seen: () => bigint;
};

export function createAgentConfigReader(options: {
  db: AgentDb;
  agentId: string;
  holder: ConfigHolder;
  logger: Logger;
}): AgentConfigReader {
  const { db, agentId, holder, logger } = options;
  // Versions seen, applied or rejected: a rejected version is not retried, a newer one is.
  let seen = 0n;
  let running: Promise<void> | undefined;
  let again = false;

  const readOnce = async () => {
    let row: { version: string; config: unknown } | undefined;
    try {
      ({
        rows: [row],
      } = await db.query<{ version: string; config: unknown }>(READ_ROW, [agentId, seen.toString()]));
      holder.setDb('ok');
    } catch (error) {
      holder.setDb('unreachable');
      logger.debug({ err: error }, 'engine config read failed');
      // The database refusing the agent's role is no outage: the agent was deleted with its role, or
      // moved off this engine. Either way it must stop serving, not go on with its last config.
      if (isRevokedCredential(error) && seen > 0n) {
        logger.warn('the database refused the agent role (agent deleted, moved, or credentials rotated)');
        seen = 0n;
        await holder.remove();
      }
      return;
    }
    if (row === undefined) {
      if (seen > 0n) {
        seen = 0n;
        await holder.remove();
      }
      return;
    }
    const version = BigInt(row.version);
    if (version <= seen || row.config === null) return;
    seen = version;
    await holder.apply(row.config, Number(version));
  };

  const check = (): Promise<void> => {
    if (running !== undefined) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await readOnce();
        } while (again);
      } catch (error) {
        logger.error({ err: error }, 'engine config check failed');
      } finally {
        running = undefined;
      }
    })();
    return running;
  };

  return { check, seen: () => seen };
}
