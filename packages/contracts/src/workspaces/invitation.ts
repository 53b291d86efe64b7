// Invitations: how someone becomes a member. The token is the invitation's only credential and is
// shown once, in the answer to its creation; the platform sends no email.
import { z } from 'zod';
import { ZIsoDateTime, ZUuid } from '../common/primitives.js';
import { ZRole } from './role.js';

/** 32 random bytes, base64url. */
export const ZInvitationToken = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}$/, 'Must be an invitation token')
  .meta({ description: 'The token given when the invitation was created' });

export const ZInvitation = z
  .strictObject({
    id: ZUuid,
    workspace_id: ZUuid,
    email: z.string().meta({ description: 'Only an account with this email can accept' }),
    role: ZRole,
    invited_by: ZUuid.nullable().meta({ description: 'The user who invited; null once their account is gone' }),
    created_at: ZIsoDateTime,
    expires_at: ZIsoDateTime,
  })
  .meta({ id: 'Invitation' });
export type TInvitation = z.infer<typeof ZInvitation>;

export const ZInvitationCreated = ZInvitation.extend({
  token: ZInvitationToken.meta({
    description:
      'Shown only here: only its hash is stored. There is no email sender; share it with the invitee (for ' +
      'example as a link to your frontend), who signs in or signs up with the invited email and calls ' +
      'POST /api/v1/invitations/{token}/accept.',
  }),
}).meta({ id: 'InvitationCreated' });
export type TInvitationCreated = z.infer<typeof ZInvitationCreated>;

export const ZInvitationParams = z.strictObject({ id: ZUuid, invitation_id: ZUuid });
export const ZInvitationTokenParams = z.strictObject({ token: ZInvitationToken });
