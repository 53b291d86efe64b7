// Names of an agent's database objects, shared by the manager (which creates them) and the engine
// (which checks it connected as its own role and finds its checkpoint schema and channels). No
// dependencies.
import { randomUUID } from 'node:crypto';

export const ENGINE_GROUP_ROLE = 'agentplane_engine';
const ROLE_PREFIX = `${ENGINE_GROUP_ROLE}_`;
const CHECKPOINT_SCHEMA_PREFIX = 'langgraph_';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function compactId(agentId: string): string {
  if (!UUID.test(agentId)) throw new TypeError(`Not an agent id: ${JSON.stringify(agentId)}`);
  return agentId.replaceAll('-', '').toLowerCase();
}

/** `agentplane_engine_<agent id without dashes>`: the migration's engine_agent_id() reads it back. */
export function engineRoleName(agentId: string): string {
  return `${ROLE_PREFIX}${compactId(agentId)}`;
}

/** The agent whose engine role `role` is, read back as engine_agent_id() does; undefined for any other role. */
export function agentIdOfEngineRole(role: string): string | undefined {
  const hex = new RegExp(`^${ROLE_PREFIX}([0-9a-f]{32})$`).exec(role)?.[1];
  if (!hex) return undefined;
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-');
}

/** A new random NOTIFY channel name (engine_channels); nobody can guess another agent's. */
export function randomChannelName(): string {
  return `agent_${randomUUID().replaceAll('-', '')}`;
}

/** Checked before a name read back from the database goes into LISTEN, which takes no bind parameter. */
export const CHANNEL_NAME = /^agent_[0-9a-f]{32}$/;

/** The agent's LangGraph checkpoint schema, `langgraph_<agent id without dashes>`. */
export function checkpointSchemaName(agentId: string): string {
  return `${CHECKPOINT_SCHEMA_PREFIX}${compactId(agentId)}`;
}

const POOL_ROLE_PREFIX = 'agentplane_pool_';

/** An engine pool's name, as operators write it in ENGINE_POOLS and DEFAULT_ENGINE_POOL. */
export const POOL_NAME = /^[a-z][a-z0-9_]{0,31}$/;

/** Matches the pool role names poolRoleName makes, in SQL (`~`) as in JavaScript. */
export const POOL_ROLE_PATTERN = `^${POOL_ROLE_PREFIX}[a-z][a-z0-9_]{0,31}$`;

/** `agentplane_pool_<pool>`: the login role of a pool's engines, granted the roles of the agents placed on it. */
export function poolRoleName(pool: string): string {
  if (!POOL_NAME.test(pool)) throw new TypeError(`Not a pool name: ${JSON.stringify(pool)}`);
  return `${POOL_ROLE_PREFIX}${pool}`;
}
