// The signed-in user's view of their own sessions. A session is named by a hash of its id: the list
// must not hand out what the cookie carries.
import { z } from 'zod';
import { ZIsoDateTime } from '../common/primitives.js';

export const ZSessionHandle = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'Must be a session id from GET /auth/sessions')
  .meta({ description: 'Names a session in this API; a hash of the session id, never the id itself' });

export const ZSessionInfo = z
  .strictObject({
    id: ZSessionHandle,
    current: z.boolean().meta({ description: 'Whether this is the session of the request' }),
    created_at: ZIsoDateTime,
    last_seen_at: ZIsoDateTime.meta({ description: 'Its last request, to within a minute' }),
    expires_at: ZIsoDateTime.meta({ description: 'When it ends unless used again (24 h idle, 7 days in all)' }),
    user_agent: z.string().nullable().meta({ description: 'The User-Agent it signed in with' }),
    ip_address: z.string().nullable().meta({ description: 'The address it signed in from' }),
  })
  .meta({ id: 'Session' });
export type TSessionInfo = z.infer<typeof ZSessionInfo>;

export const ZSessionParams = z.strictObject({ id: ZSessionHandle });
