import { z } from 'zod';
import { ZUuid } from '../common/primitives.js';

/** What one agent's engine needs to run, returned once per rotation: its env is AGENT_ID, DATABASE_URL and AGENT_KEY. */
export const ZEngineCredentials = z
  .strictObject({
    agent_id: ZUuid,
    database_url: z.string().meta({
      description: "postgresql:// URL of the agent's own database role; the previous password stops working",
    }),
    agent_key: z
      .string()
      .meta({ description: "The key that opens the secrets of this agent's engine config (base64)" }),
  })
  .meta({ id: 'EngineCredentials', description: "An engine's credentials: its database role and its agent key" });
export type TEngineCredentials = z.infer<typeof ZEngineCredentials>;

/** What the engines of one pool need to run, returned once per rotation: ENGINE_POOL, DATABASE_URL and ENGINE_POOL_KEY. */
export const ZPoolCredentials = z
  .strictObject({
    pool: z.string(),
    database_url: z.string().meta({
      description: "postgresql:// URL of the pool's own database role; the previous password stops working",
    }),
    pool_key: z.string().meta({
      description: 'The key that opens the secrets of the engine configs of the agents on this pool (base64)',
    }),
  })
  .meta({ id: 'PoolCredentials', description: "A pool's engine credentials: its database role and its pool key" });
export type TPoolCredentials = z.infer<typeof ZPoolCredentials>;
