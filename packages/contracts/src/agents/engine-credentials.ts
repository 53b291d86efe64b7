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
