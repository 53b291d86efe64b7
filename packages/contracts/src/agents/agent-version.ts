// An agent's versions (GET /agents/{id}/versions, …/diff, POST /agents/{id}/rollback): one immutable
// record per published engine_config version, with what made it, who and why. Secret values never
// leave the manager in these bodies: every secret shows as a mask, in a version and in a diff.
import { z } from 'zod';
import { describeUnstorableText } from '../common/json-checks.js';
import { ZPaginationQuery } from '../common/pagination.js';
import { ZIsoDateTime, ZUuid } from '../common/primitives.js';
import { ZEngineConfig } from '../engine/engine-config.js';

/**
 * What made a version: the agent's own write (create, update, rollback), a change to something it
 * uses (a resource, a budget, the workspace's default guardrails, an agent it calls), the start-up
 * re-seal of its config (upgrade), or the version recorded for an agent that existed before versions (backfill).
 */
export const AGENT_VERSION_CAUSES = [
  'create',
  'update',
  'rollback',
  'resource',
  'budget',
  'guardrails',
  'callee',
  'upgrade',
  'backfill',
] as const;
export type TAgentVersionCause = (typeof AGENT_VERSION_CAUSES)[number];

export const VERSION_MESSAGE_MAX_LENGTH = 1000;

export const ZVersionMessage = z
  .string()
  .trim()
  .min(1)
  .max(VERSION_MESSAGE_MAX_LENGTH)
  .superRefine((text, ctx) => {
    const problem = describeUnstorableText(text);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description: `Why the change was made, recorded with the version it creates (at most ${VERSION_MESSAGE_MAX_LENGTH} characters)`,
  });

const ZVersionNumber = z.number().int().min(1);

// Digits only, as the pagination parameters: "1e3", " 5" and "" are a 400, not a version.
const ZVersionParam = z
  .string()
  .regex(/^\d{1,15}$/, { error: 'Must be a version number written in digits' })
  .transform(Number)
  .pipe(ZVersionNumber);

export const ZAgentVersionParams = z.strictObject({ id: ZUuid, version: ZVersionParam });
export type TAgentVersionParams = z.infer<typeof ZAgentVersionParams>;

export const ZAgentVersionListQuery = ZPaginationQuery;

export const ZAgentVersionDiffQuery = z.object({
  against: ZVersionParam.meta({ description: 'The version to compare with: the patch turns it into this one' }),
});
export type TAgentVersionDiffQuery = z.infer<typeof ZAgentVersionDiffQuery>;

export const ZAgentVersion = z
  .strictObject({
    agent_id: ZUuid,
    version: ZVersionNumber.meta({ description: 'The engine_config version it recorded' }),
    cause: z.enum(AGENT_VERSION_CAUSES),
    author: z
      .strictObject({ id: ZUuid, email: z.string(), name: z.string().nullable() })
      .nullable()
      .meta({ description: 'Who made the change; null for changes the platform made, or an author since deleted' }),
    message: z.string().nullable(),
    rolled_back_from: ZVersionNumber.nullable().meta({ description: 'For a rollback: the version it restored' }),
    current: z.boolean().meta({ description: "Whether it is the agent's published engine_config version" }),
    created_at: ZIsoDateTime,
  })
  .meta({ id: 'AgentVersion', description: 'One recorded version of what an agent runs' });
export type TAgentVersion = z.infer<typeof ZAgentVersion>;

export const ZAgentVersionDetail = ZAgentVersion.extend({
  spec: z.record(z.string(), z.unknown()).meta({
    description:
      "The agent's own settings at that version, in the shape of an agent PATCH body (name, description, framework, agent, resources, engine_url, deployment), secrets masked: what a rollback restores",
  }),
  engine_config: ZEngineConfig.meta({
    description:
      'The engine_config published as that version, with the configs of the resources it used then, secrets masked',
  }),
}).meta({ id: 'AgentVersionDetail', description: 'A version with its spec and engine_config' });
export type TAgentVersionDetail = z.infer<typeof ZAgentVersionDetail>;

export const ZJsonPatchOperation = z
  .strictObject({
    op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
    path: z.string(),
    value: z.unknown().optional(),
    from: z.string().optional(),
  })
  .meta({ id: 'JsonPatchOperation', description: 'An RFC 6902 JSON Patch operation' });

export const ZAgentVersionDiff = z
  .strictObject({
    agent_id: ZUuid,
    from: ZVersionNumber.meta({ description: 'The version compared with (`against`)' }),
    to: ZVersionNumber,
    patch: z.array(ZJsonPatchOperation).meta({
      description:
        'RFC 6902 JSON Patch from `from` to `to` over {spec, engine_config}. Secrets are masked on both sides: a changed secret is a replace with the mask as its value, never the secret or its ciphertext',
    }),
  })
  .meta({ id: 'AgentVersionDiff', description: 'What changed between two versions of an agent' });
export type TAgentVersionDiff = z.infer<typeof ZAgentVersionDiff>;

export const ZAgentRollback = z
  .strictObject({
    version: ZVersionNumber.meta({ description: 'The version whose spec to publish again' }),
    message: ZVersionMessage.optional(),
  })
  .meta({ id: 'AgentRollback' });
export type TAgentRollback = z.infer<typeof ZAgentRollback>;
