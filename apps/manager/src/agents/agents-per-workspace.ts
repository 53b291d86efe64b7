// The operator's cap on agents per workspace (MAX_AGENTS_PER_WORKSPACE): each agent is a published
// config, an engine role and what its engine stores, so a sign-up must not make them without bound.
import type { Tx } from '@agentplane/db';
import { refusePastWorkspaceCap } from '../workspaces/workspace-cap.js';

export const MAX_AGENTS_PER_WORKSPACE_DEFAULT = 1000;

/** Refuses (409) a new agent in a workspace that has `max` already. */
export async function refuseAgentPastCap(tx: Tx, workspaceId: string, max: number): Promise<void> {
  await refusePastWorkspaceCap(tx, workspaceId, {
    max,
    count: (locked) => locked.agent.count({ where: { workspaceId } }),
    noun: 'agents',
    setting: 'MAX_AGENTS_PER_WORKSPACE',
    type: 'agents-per-workspace',
  });
}
