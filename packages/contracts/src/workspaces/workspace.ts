import { z } from 'zod';
import { ZDeployment } from '../agents/deployment.js';
import { ZEmail } from '../auth/auth.js';
import { AGENT_RESOURCE_IDS_MAX_ITEMS } from '../common/limits.js';
import { ZIsoDateTime, ZResourceName, ZUuid } from '../common/primitives.js';
import { ZRole } from './role.js';

export const ZWorkspaceBody = z.strictObject({ name: ZResourceName }).meta({ id: 'WorkspaceBody' });
export type TWorkspaceBody = z.infer<typeof ZWorkspaceBody>;

export const ZWorkspaceUpdate = ZWorkspaceBody.extend({
  default_deployment: ZDeployment.nullable().optional().meta({
    description:
      "Where the workspace's new agents are served unless their create says otherwise; null: the operator's default. Omitted: unchanged",
  }),
  default_guardrail_ids: z
    .array(ZUuid)
    .max(AGENT_RESOURCE_IDS_MAX_ITEMS)
    .refine((ids) => new Set(ids).size === ids.length, { message: 'Duplicate guardrail id' })
    .optional()
    .meta({
      description:
        "Guardrails of this workspace every agent in it applies, besides its own; their agents' engine configs are republished. Omitted: unchanged",
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
    default_guardrail_ids: z.array(ZUuid).meta({ description: 'Guardrails every agent of the workspace applies' }),
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
