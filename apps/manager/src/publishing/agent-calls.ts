// What a calling agent's engine_config holds about the agents its MCP servers of transport "agent" call:
// each one's MCP endpoint, derived here from where the platform serves it (never from the tenant), and
// the credential its engine asks the manager for a token with on every call. The credential lives only
// in the sealed config; the manager keeps its hash, and keeps the credential across republishes while
// the published one still matches it.
import { randomBytes } from 'node:crypto';
import {
  agentEndpointsOf,
  type TEngineAgentCalls,
  type TEngineCallee,
  type TEngineConfig,
} from '@agentplane/contracts';
import type { SecretBox, Tx } from '@agentplane/db';
import { hashCallCredential } from '../agent-calls/call-credentials.js';
import { type DeploymentColumns, engineUrlOf } from '../engine-pools/deployments.js';

export type CalleeRow = DeploymentColumns & {
  id: string;
  name: string;
  description: string | null;
  engineUrl: string | null;
};

type CallingAgent = {
  id: string;
  callCredentialHash: string | null;
  engineConfig: { config: unknown } | null;
  callees: CalleeRow[];
};

/** Every agent called once, in the order its first server names it. */
function calleesOf(rows: CalleeRow[], poolUrls: ReadonlyMap<string, string>): TEngineCallee[] {
  const seen = new Set<string>();
  return rows.flatMap((row) => {
    if (seen.has(row.id)) return [];
    seen.add(row.id);
    const engineUrl = engineUrlOf(row, poolUrls);
    return [
      {
        agent_id: row.id,
        name: row.name,
        description: row.description,
        url: engineUrl === null ? null : agentEndpointsOf(engineUrl).mcp,
        platform_url: row.deploymentMode === 'pool',
      },
    ];
  });
}

/** The credential in the agent's published config, when its engine's key still opens it. */
function publishedCredential(agent: CallingAgent, agentBox: SecretBox): string | undefined {
  const sealed = (agent.engineConfig?.config as TEngineConfig | undefined)?.agent_calls?.credential;
  if (sealed === undefined) return undefined;
  try {
    return agentBox.open(sealed);
  } catch {
    return undefined;
  }
}

async function storeCredentialHash(tx: Tx, agentId: string, hash: string | null): Promise<void> {
  // In SQL, so that the agent's updated_at says when a person last changed it, not when it was republished.
  await tx.$executeRaw`UPDATE agents SET call_credential_hash = ${hash} WHERE id = ${agentId}::uuid`;
}

/**
 * The agent's agent_calls section, or null when it calls no agent (its credential is then forgotten, so a
 * copy of it is worth nothing). A new credential is made when none matches the stored hash.
 */
export async function agentCallsFor(
  tx: Tx,
  agent: CallingAgent,
  { agentBox, poolUrls }: { agentBox: SecretBox; poolUrls: ReadonlyMap<string, string> },
): Promise<TEngineAgentCalls | null> {
  const callees = calleesOf(agent.callees, poolUrls);
  if (callees.length === 0) {
    if (agent.callCredentialHash !== null) await storeCredentialHash(tx, agent.id, null);
    return null;
  }
  const published = publishedCredential(agent, agentBox);
  if (published !== undefined && hashCallCredential(published) === agent.callCredentialHash) {
    return { credential: published, callees };
  }
  const credential = `${agent.id}.${randomBytes(32).toString('base64url')}`;
  await storeCredentialHash(tx, agent.id, hashCallCredential(credential));
  return { credential, callees };
}

/** The agents with an MCP server calling one of `agentIds`: their configs name where those are served. */
export async function readCallersOf(tx: Tx, agentIds: string[]): Promise<string[]> {
  if (agentIds.length === 0) return [];
  const rows = await tx.$queryRaw<{ agent_id: string }[]>`
    SELECT DISTINCT link.agent_id::text AS agent_id
    FROM agent_mcp_servers link JOIN mcp_servers server ON server.id = link.mcp_server_id
    WHERE server.agent_id = ANY(${agentIds}::uuid[])`;
  return rows.map((row) => row.agent_id);
}
