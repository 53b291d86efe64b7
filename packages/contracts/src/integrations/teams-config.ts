import { z } from 'zod';
import { ZChannelSecret } from './channel-config-fields.js';

export const ZTeamsConfig = z
  .strictObject({
    // The Azure Bot's Microsoft App ID: the audience of the Bot Framework's tokens.
    appId: z.uuid({ error: 'Must be the Microsoft App ID (a GUID)' }),
    // Its client secret, exchanged for the tokens that post replies.
    appPassword: ZChannelSecret,
    // A single-tenant bot's Entra tenant; absent for a multi-tenant bot (tokens from botframework.com).
    tenantId: z.uuid({ error: 'Must be an Entra tenant id (a GUID)' }).optional(),
  })
  .meta({ id: 'TeamsConfig', description: 'Configuration of the TEAMS provider' });
export type TTeamsConfig = z.infer<typeof ZTeamsConfig>;

export const TEAMS_SECRET_FIELDS = ['appPassword'] as const satisfies readonly (keyof TTeamsConfig)[];
