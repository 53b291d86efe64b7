// The config of an agent version a run is pinned to (an experiment's): its pinned_engine_configs row,
// read through the agent's own handle (row-level security shows an engine its own agent's rows only),
// and parsed and opened exactly as its engine_configs row is. Whatever goes wrong is a VersionUnavailable
// that names the version: a pinned run never falls back to another version's config.
import type { TEngineConfig } from '@agentplane/contracts';
import type { AgentDb } from '../database/agent-db.js';
import { parseEngineConfig, type SecretOpener } from './parse-engine-config.js';

/** Why a pinned run cannot have its version; the message names the version, for the run's RUN_ERROR. */
export class VersionUnavailable extends Error {
  override name = 'VersionUnavailable';
}

const READ_PINNED = `SELECT config FROM pinned_engine_configs WHERE agent_id = $1 AND version = $2::bigint`;

export async function readPinnedConfig(
  db: AgentDb,
  agentId: string,
  version: number,
  openSecret: SecretOpener,
): Promise<TEngineConfig> {
  let rows: { config: unknown }[];
  try {
    ({ rows } = await db.query<{ config: unknown }>(READ_PINNED, [agentId, String(version)]));
  } catch (error) {
    // The database's own words stay in the log (the cause): the run's readers see only that it failed.
    throw new VersionUnavailable(`Agent version ${version} could not be read.`, { cause: error });
  }
  const row = rows[0];
  if (row === undefined) throw new VersionUnavailable(`Agent version ${version} has no config on this engine.`);
  try {
    return parseEngineConfig(row.config, openSecret);
  } catch (error) {
    throw new VersionUnavailable(
      `Agent version ${version} has a config this engine cannot use: ${(error as Error).message}`,
    );
  }
}
