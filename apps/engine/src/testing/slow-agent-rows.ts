// Agents whose code is the slow agent fixture (agents/custom/fixtures/slow-agent.js), for tests that need
// runs still going when they act: "<count> <delayMs>" as the run's message makes it stream `count`
// deltas, `delayMs` apart. Engines serving them need ENGINE_AGENTS_DIR: AGENT_FIXTURES.
import { fileURLToPath } from 'node:url';
import type { Db } from '@agentplane/db';
import { makeAgent } from '@agentplane/db/testing';
import { type AgentRow, writeConfigRow } from './engine-config-rows.js';
import { makeCustomEngineConfig } from './module-engine-configs.js';

export const AGENT_FIXTURES = fileURLToPath(new URL('../agents/custom/fixtures', import.meta.url));
export const SLOW_AGENT_MODULE = 'slow-agent.js:createSlowAgent';

/** A new agent of the workspace, its config (version 1) the slow agent's. */
export async function makeSlowAgentRow(db: Db, workspaceId: string): Promise<AgentRow> {
  const row = { agentId: (await makeAgent(db, workspaceId)).id, workspaceId };
  await writeConfigRow(db, row, 1, makeCustomEngineConfig(SLOW_AGENT_MODULE, row));
  return row;
}
