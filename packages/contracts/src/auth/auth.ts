// Bodies of sign-up, sign-in and the signed-in user's view of themselves.
import { z } from 'zod';
import { ZUuid } from '../common/primitives.js';
import { ZRole } from '../workspaces/role.js';

// Emails are compared and stored normalised, so that Ada@Example.com and ada@example.com are one account.
export const ZEmail = z.string().trim().toLowerCase().pipe(z.email().max(254));

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

export const ZSignupBody = z
  .strictObject({
    email: ZEmail,
    password: z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH),
    name: z.string().trim().min(1).max(200).optional(),
  })
  .meta({ id: 'SignupBody' });
export type TSignupBody = z.infer<typeof ZSignupBody>;

// No length rules on sign-in: a wrong password of any length is just a wrong password (401).
export const ZLoginBody = z
  .strictObject({ email: ZEmail, password: z.string().min(1).max(PASSWORD_MAX_LENGTH) })
  .meta({ id: 'LoginBody' });
export type TLoginBody = z.infer<typeof ZLoginBody>;

export const ZPasswordChangeBody = z
  .strictObject({
    current_password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
    new_password: z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH),
  })
  .meta({ id: 'PasswordChangeBody' });
export type TPasswordChangeBody = z.infer<typeof ZPasswordChangeBody>;

export const ZUser = z
  .strictObject({
    id: ZUuid,
    email: z.string(),
    name: z.string().nullable(),
    platform_operator: z.boolean().meta({
      description:
        'May issue engine database credentials, for any agent or pool; only `agentplane-manager operator` makes one',
    }),
  })
  .meta({ id: 'User' });
export type TUser = z.infer<typeof ZUser>;

export const ZMe = z
  .strictObject({
    user: ZUser,
    workspaces: z.array(z.strictObject({ id: ZUuid, name: z.string(), role: ZRole })),
    default_workspace_id: ZUuid.nullable(),
  })
  .meta({
    id: 'Me',
    description: 'The signed-in user, their workspaces and the one used when no x-workspace-id is sent',
  });
export type TMe = z.infer<typeof ZMe>;
