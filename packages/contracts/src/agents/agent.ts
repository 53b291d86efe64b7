// Bodies and response of /api/v1/agents.
import { z } from 'zod';
import { AGENT_RESOURCE_IDS_MAX_ITEMS, DESCRIPTION_MAX_LENGTH } from '../common/limits.js';
import { ZPaginationQuery } from '../common/pagination.js';
import { makeBaseUrl, ZIsoDateTime, ZResourceName, ZUuid } from '../common/primitives.js';
import { ZEngineConfig } from '../engine/engine-config.js';
import { ZAgentEndpoints } from './agent-endpoints.js';
import { AGENT_CONFIG_BY_FRAMEWORK, type TAgentFramework } from './agent-frameworks.js';
import { ZVersionMessage } from './agent-version.js';
import { ZDeployment } from './deployment.js';

function uniqueIds(what: string) {
  return z
    .array(ZUuid)
    .max(AGENT_RESOURCE_IDS_MAX_ITEMS)
    .superRefine((ids, ctx) => {
      ids.forEach((id, index) => {
        if (ids.indexOf(id) !== index) ctx.addIssue({ code: 'custom', path: [index], message: `Duplicate ${what} id` });
      });
    })
    .default(() => []);
}

export const ZAgentResources = z
  .strictObject({
    integration_ids: uniqueIds('integration'),
    mcp_server_ids: uniqueIds('MCP server'),
    guardrail_ids: uniqueIds('guardrail'),
    sso_id: ZUuid.nullable().default(null),
    observability_id: ZUuid.nullable().default(null),
  })
  .meta({ id: 'AgentResources', description: 'The managed resources the agent uses, by id' });
export type TAgentResources = z.infer<typeof ZAgentResources>;

// Only browsers (the console's playground) call it, never the manager, so no egress rule applies. The
// playground appends /agent/run to it: a query or fragment would make that any path of any origin.
export const ZEngineUrl = makeBaseUrl(z.url({ protocol: /^https?$/ })).meta({
  description:
    "Where this agent's dedicated engine answers: an http(s) origin and an optional path, without credentials, query or fragment, and never the manager's own origin. The console streams runs from it (without cookies) and reads its /health. A pooled agent's is derived (<pool URL>/agents/<agent id>): sending any other value for one is a 422",
  examples: ['http://127.0.0.1:8001'],
});

const DEPLOYMENT_IN_BODY =
  "Where the agent is served. On create, omitted: the workspace's default_deployment, else the operator's " +
  '(GET /api/v1/engine-pools). On PATCH, omitted: where it is now; another placement moves it, and its ' +
  "engine_config is sealed again for its new engine's key";

function agentBody<F extends TAgentFramework>(framework: F) {
  return z.strictObject({
    name: ZResourceName,
    description: z.string().trim().max(DESCRIPTION_MAX_LENGTH).nullable().optional(),
    framework: z.literal(framework),
    agent: AGENT_CONFIG_BY_FRAMEWORK[framework],
    resources: ZAgentResources.default(() => ({
      integration_ids: [],
      mcp_server_ids: [],
      guardrail_ids: [],
      sso_id: null,
      observability_id: null,
    })),
    engine_url: ZEngineUrl.nullable().optional(),
    deployment: ZDeployment.optional().meta({ description: DEPLOYMENT_IN_BODY }),
    version_message: ZVersionMessage.optional().meta({
      description:
        'Why the change was made: kept with the version this write records (GET /agents/{id}/versions), not on the agent',
    }),
  });
}

const FRAMEWORK_ERROR = {
  error: (issue: { code: string }) =>
    issue.code === 'invalid_union' ? 'framework must be one of: LLM, LANGGRAPH, CUSTOM' : undefined,
};

const AGENT_EXAMPLE = {
  name: 'Support agent',
  description: 'Answers customers on WhatsApp',
  framework: 'LLM',
  agent: {
    model: { provider: 'openai', name: 'gpt-4o-mini' },
    instructions: 'You answer questions about orders. Be brief.',
    maxSteps: 10,
  },
  resources: {
    integration_ids: ['9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d'],
    mcp_server_ids: ['6f1c1b5e-8a43-4b0c-9f7e-2d1f0c9a7b11'],
    guardrail_ids: [],
    sso_id: null,
    observability_id: null,
  },
};

export const ZAgentCreate = z
  .discriminatedUnion('framework', [agentBody('LLM'), agentBody('LANGGRAPH'), agentBody('CUSTOM')], FRAMEWORK_ERROR)
  .meta({ id: 'AgentCreate', examples: [AGENT_EXAMPLE] });
export type TAgentCreate = z.infer<typeof ZAgentCreate>;

// PATCH is a full replacement, so the update body has the create body's shape.
export const ZAgentUpdate = z
  .discriminatedUnion('framework', [agentBody('LLM'), agentBody('LANGGRAPH'), agentBody('CUSTOM')], FRAMEWORK_ERROR)
  .meta({ id: 'AgentUpdate', examples: [AGENT_EXAMPLE] });

function agentResponse<F extends TAgentFramework>(framework: F) {
  return z.strictObject({
    id: ZUuid,
    name: z.string(),
    description: z.string().nullable(),
    framework: z.literal(framework),
    agent: AGENT_CONFIG_BY_FRAMEWORK[framework],
    resources: z.strictObject({
      integration_ids: z.array(ZUuid),
      mcp_server_ids: z.array(ZUuid),
      guardrail_ids: z.array(ZUuid),
      sso_id: ZUuid.nullable(),
      observability_id: ZUuid.nullable(),
    }),
    engine_url: z.string().nullable().meta({
      description:
        "Where the agent's engine answers: for a pooled agent, derived from its pool's URL (read-only); for a dedicated one, as set",
    }),
    endpoints: ZAgentEndpoints.nullable().meta({
      description:
        "The agent's AG-UI, MCP and A2A endpoints and its agent card, under its engine_url; null while it has none",
    }),
    deployment: ZDeployment,
    engine_config: ZEngineConfig,
    engine_config_version: z.number().int().min(1),
    created_at: ZIsoDateTime,
    updated_at: ZIsoDateTime,
  });
}

export const ZAgent = z
  .discriminatedUnion('framework', [agentResponse('LLM'), agentResponse('LANGGRAPH'), agentResponse('CUSTOM')])
  .meta({ id: 'Agent', description: 'An agent, with the engine_config its engine runs' });
export type TAgent = z.infer<typeof ZAgent>;

export const AGENT_LIST_INCLUDES = ['engine_config'] as const;

// A list stays small whatever the configs weigh: each engine_config may be up to ENGINE_CONFIG_MAX_BYTES.
export const ZAgentListQuery = ZPaginationQuery.extend({
  include: z.enum(AGENT_LIST_INCLUDES).optional().meta({
    description:
      "engine_config: inline each agent's whole engine_config (left out by default; see GET /agents/{id}/engine-config)",
  }),
});
export type TAgentListQuery = z.infer<typeof ZAgentListQuery>;

function agentListItem<F extends TAgentFramework>(framework: F) {
  return agentResponse(framework).extend({
    engine_config: ZEngineConfig.optional().meta({ description: 'Only with ?include=engine_config' }),
  });
}

export const ZAgentListItem = z
  .discriminatedUnion('framework', [agentListItem('LLM'), agentListItem('LANGGRAPH'), agentListItem('CUSTOM')])
  .meta({
    id: 'AgentListItem',
    description: 'An agent in a list: its engine_config_version always, its engine_config only when asked for',
  });
export type TAgentListItem = z.infer<typeof ZAgentListItem>;

/** The engine_configs row of one agent: what its engine polls and runs. */
export const ZPublishedEngineConfig = z
  .strictObject({
    agent_id: ZUuid,
    version: z.number().int().min(1),
    config: ZEngineConfig,
    updated_at: ZIsoDateTime,
  })
  .meta({ id: 'PublishedEngineConfig', description: "An agent's published engine_config and its version" });
export type TPublishedEngineConfig = z.infer<typeof ZPublishedEngineConfig>;
