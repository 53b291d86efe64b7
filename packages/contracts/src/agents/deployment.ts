// Where an agent is served: on one of the operator's pool engines, which serve many agents each, or on
// an engine deployed for it alone.
import { z } from 'zod';

export const DEPLOYMENT_MODES = ['pool', 'dedicated'] as const;
export type TDeploymentMode = (typeof DEPLOYMENT_MODES)[number];

// Which names exist is the operator's (ENGINE_POOLS); the manager answers a 422 for any other.
const ZPoolName = z
  .string()
  .min(1)
  .max(32)
  .meta({ description: "One of the operator's pools (ENGINE_POOLS), as GET /api/v1/engine-pools lists them" });

export const ZDeployment = z
  .discriminatedUnion(
    'mode',
    [z.strictObject({ mode: z.literal('pool'), pool: ZPoolName }), z.strictObject({ mode: z.literal('dedicated') })],
    { error: (issue) => (issue.code === 'invalid_union' ? 'mode must be one of: pool, dedicated' : undefined) },
  )
  .meta({
    id: 'Deployment',
    description:
      "pool: served by the operator's pool engine of that name, at <pool URL>/agents/<agent id>, as soon as it is created. " +
      'dedicated: served by an engine deployed for this agent alone, with credentials the operator issues.',
    examples: [{ mode: 'pool', pool: 'main' }, { mode: 'dedicated' }],
  });
export type TDeployment = z.infer<typeof ZDeployment>;

export const ZEnginePool = z
  .strictObject({
    name: z.string(),
    public_url: z.string().meta({ description: "Where the pool's engines answer; each agent under /agents/{id}" }),
  })
  .meta({ id: 'EnginePool' });

export const ZEnginePools = z
  .strictObject({
    pools: z.array(ZEnginePool),
    default_deployment: ZDeployment,
  })
  .meta({
    id: 'EnginePools',
    description:
      "The operator's engine pools, and its default placement of new agents (DEFAULT_ENGINE_POOL), which a workspace may override",
  });
export type TEnginePools = z.infer<typeof ZEnginePools>;
