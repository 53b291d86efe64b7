// Names of an agent's database objects, shared by the manager (which creates them) and the engine
// (which checks it connected as its own role and finds its checkpoint schema). No dependencies.

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

/** The agent's LangGraph checkpoint schema, `langgraph_<agent id without dashes>`. */
export function checkpointSchemaName(agentId: string): string {
  return `${CHECKPOINT_SCHEMA_PREFIX}${compactId(agentId)}`;
}
