import { z } from 'zod';
import { ZDeployment } from '../agents/deployment.js';
import { ZEmail } from '../auth/auth.js';
import { ZIsoDateTime, ZResourceName, ZUuid } from '../common/primitives.js';
import { ZRole } from './role.js';

export const ZWorkspaceBody = z.strictObject({ name: ZResourceName }).meta({ id: 'WorkspaceBody' });
export type TWorkspaceBody = z.infer<typeof ZWorkspaceBody>;

export const ZWorkspaceUpdate = ZWorkspaceBody.extend({
  default_deployment: ZDeployment.nullable().optional().meta({
    description:
      "Where the workspace's new agents are served unless their create says otherwise; null: the operator's default. Omitted: unchanged",
  }),
}).meta({ id: 'WorkspaceUpdate' });
export type TWorkspaceUpdate = z.infer<typeof ZWorkspaceUpdate>;

export const ZWorkspace = z
  .strictObject({
    id: ZUuid,
    name: z.string(),
    /** The caller's role in this workspace. */
    role: ZRole,
    default_deployment: ZDeployment.nullable().meta({
      description: "The workspace's default placement of new agents; null: the operator's (GET /api/v1/engine-pools)",
    }),
    created_at: ZIsoDateTime,
    updated_at: ZIsoDateTime,
  })
  .meta({ id: 'Workspace' });
export type TWorkspace = z.infer<typeof ZWorkspace>;

export const ZMemberAddBody = z.strictObject({ email: ZEmail, role: ZRole }).meta({
  id: 'MemberAddBody',
  description: 'Invites the email with a role; whoever accepts with that email becomes a member',
});
export type TMemberAddBody = z.infer<typeof ZMemberAddBody>;

export const ZMemberUpdateBody = z.strictObject({ role: ZRole }).meta({ id: 'MemberUpdateBody' });
export type TMemberUpdateBody = z.infer<typeof ZMemberUpdateBody>;

export const ZMember = z
  .strictObject({
    user_id: ZUuid,
    email: z.string(),
    name: z.string().nullable(),
    role: ZRole,
    created_at: ZIsoDateTime,
    updated_at: ZIsoDateTime,
  })
  .meta({ id: 'Member' });
export type TMember = z.infer<typeof ZMember>;

export const ZWorkspaceIdParams = z.strictObject({ id: ZUuid });
export const ZMemberParams = z.strictObject({ id: ZUuid, user_id: ZUuid });
