// Where an agent written through the API is served: the deployment a create or a full replacement
// leaves it with, checked against the operator's pools, and the engine_url such an agent may carry.
import type { TAgentCreate, TDeployment } from '@agentplane/contracts';
import type { Tx } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import {
  columnsOf,
  type DeploymentColumns,
  deploymentOf,
  engineUrlOf,
  refuseUnknownPool,
  sameDeployment,
  workspaceDeploymentOf,
} from '../engine-pools/deployments.js';
import type { EnginePoolSettings } from '../engine-pools/engine-pool-settings.js';

export type PlacementContext = { enginePools: EnginePoolSettings; workspaceId: string };

/** The body's deployment, else the workspace's default, else the operator's (DEFAULT_ENGINE_POOL). */
export async function deploymentForCreate(tx: Tx, ctx: PlacementContext, body: TAgentCreate): Promise<TDeployment> {
  if (body.deployment !== undefined) {
    refuseUnknownPool(body.deployment, ctx.enginePools.urls, 'deployment.pool');
    return body.deployment;
  }
  const workspace = await tx.workspace.findUnique({
    where: { id: ctx.workspaceId },
    select: { defaultDeploymentMode: true, defaultDeploymentPool: true },
  });
  const override = workspace === null ? null : workspaceDeploymentOf(workspace);
  if (override === null) return ctx.enginePools.defaultDeployment;
  // The operator may have stopped serving the pool the workspace chose: the create says where instead.
  refuseUnknownPool(override, ctx.enginePools.urls, 'deployment');
  return override;
}

/**
 * The body's deployment, else where the agent is now: a full replacement that leaves it out keeps the
 * agent where it is, since a move re-keys its engine config. Only a move needs a pool the operator serves.
 */
export function deploymentForUpdate(ctx: PlacementContext, existing: DeploymentColumns, body: TAgentCreate) {
  const current = deploymentOf(existing);
  const deployment = body.deployment ?? current;
  if (!sameDeployment(deployment, current)) refuseUnknownPool(deployment, ctx.enginePools.urls, 'deployment.pool');
  return { deployment, moved: !sameDeployment(deployment, current) };
}

/**
 * A pooled agent's engine_url is derived from its pool's URL: a body may send that one back (as a form
 * that read the agent does), or none, but no other. `agentId` is undefined on create, before there is one.
 */
export function refuseEngineUrlOnPool(
  ctx: PlacementContext,
  deployment: TDeployment,
  engineUrl: string | null | undefined,
  agentId: string | undefined,
): void {
  if (deployment.mode !== 'pool' || engineUrl == null) return;
  const derived =
    agentId === undefined
      ? null
      : engineUrlOf({ id: agentId, engineUrl: null, ...columnsOf(deployment) }, ctx.enginePools.urls);
  if (engineUrl === derived) return;
  throw new AppError('validation_failed', "A pooled agent's engine_url is its pool's.", {
    errors: [
      {
        path: 'engine_url',
        message: `Read-only for an agent on a pool: it is derived from the pool's URL (<pool URL>/agents/<agent id>). Send null, or move the agent to deployment {"mode": "dedicated"} to give it an engine of its own`,
      },
    ],
  });
}
