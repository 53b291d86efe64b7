// An agent's placement between its API form (`deployment`), its columns, the pool role that serves it
// and the engine_url a pooled agent is reached at.
import type { TDeployment } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';

/** How agents store their placement (agents.deployment_mode, deployment_pool). */
export type DeploymentColumns = { deploymentMode: string; deploymentPool: string | null };

/** How a workspace stores its default placement; both null: the operator's. */
export type DefaultDeploymentColumns = { defaultDeploymentMode: string | null; defaultDeploymentPool: string | null };

export function deploymentOf(columns: DeploymentColumns): TDeployment {
  return columns.deploymentMode === 'pool' && columns.deploymentPool !== null
    ? { mode: 'pool', pool: columns.deploymentPool }
    : { mode: 'dedicated' };
}

export function columnsOf(deployment: TDeployment): DeploymentColumns {
  return deployment.mode === 'pool'
    ? { deploymentMode: 'pool', deploymentPool: deployment.pool }
    : { deploymentMode: 'dedicated', deploymentPool: null };
}

export function workspaceDeploymentOf(columns: DefaultDeploymentColumns): TDeployment | null {
  if (columns.defaultDeploymentMode === null) return null;
  return deploymentOf({ deploymentMode: columns.defaultDeploymentMode, deploymentPool: columns.defaultDeploymentPool });
}

export function defaultColumnsOf(deployment: TDeployment | null): DefaultDeploymentColumns {
  if (deployment === null) return { defaultDeploymentMode: null, defaultDeploymentPool: null };
  const { deploymentMode, deploymentPool } = columnsOf(deployment);
  return { defaultDeploymentMode: deploymentMode, defaultDeploymentPool: deploymentPool };
}

/** The pool whose engines serve the agent, or null for a dedicated agent: what placeAgentRole and the keyring take. */
export function poolOf(deployment: TDeployment): string | null {
  return deployment.mode === 'pool' ? deployment.pool : null;
}

export function sameDeployment(a: TDeployment, b: TDeployment): boolean {
  return a.mode === b.mode && poolOf(a) === poolOf(b);
}

/**
 * Where the agent's engine answers: `<pool URL>/agents/<id>` for a pooled agent (null while its pool is
 * not among ENGINE_POOLS), the stored engine_url for a dedicated one.
 */
export function engineUrlOf(
  agent: DeploymentColumns & { id: string; engineUrl: string | null },
  poolUrls: ReadonlyMap<string, string>,
): string | null {
  const pool = poolOf(deploymentOf(agent));
  if (pool === null) return agent.engineUrl;
  const base = poolUrls.get(pool);
  return base === undefined ? null : `${base}/agents/${agent.id}`;
}

/** A 422 at `path` when the deployment names a pool the operator does not serve. */
export function refuseUnknownPool(deployment: TDeployment, poolUrls: ReadonlyMap<string, string>, path: string): void {
  if (deployment.mode !== 'pool' || poolUrls.has(deployment.pool)) return;
  const known = [...poolUrls.keys()];
  throw new AppError('validation_failed', 'No such engine pool.', {
    errors: [
      {
        path,
        message: `No engine pool is named "${deployment.pool}"; ${
          known.length === 0 ? 'the operator serves none (use mode dedicated)' : `the pools are: ${known.join(', ')}`
        }`,
      },
    ],
  });
}
