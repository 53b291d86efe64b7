// What the manager publishes in `engine_configs.config` and every engine validates before applying:
// the agent with its framework config, plus the resolved resources it references.
import { z } from 'zod';
import { ZEngineAgentCalls } from '../agents/agent-calls.js';
import { AGENT_CONFIG_BY_FRAMEWORK, type TAgentFramework } from '../agents/agent-frameworks.js';
import { ZEngineBudgets } from '../budgets/budget.js';
import { AGENT_RESOURCE_IDS_MAX_ITEMS, DESCRIPTION_MAX_LENGTH } from '../common/limits.js';
import { ZResourceName, ZUuid } from '../common/primitives.js';
import { ZEngineGuardrail } from '../guardrails/guardrail-config.js';
import {
  ZDiscordIntegrationConfig,
  ZGoogleChatIntegrationConfig,
  ZSlackIntegrationConfig,
  ZTeamsIntegrationConfig,
  ZTelegramIntegrationConfig,
  ZWhatsAppIntegrationConfig,
} from '../integrations/integration-config.js';
import { ZMcpServerConfig } from '../mcp-servers/mcp-server-config.js';
import { ZObservabilityConfig } from '../observability/observability-config.js';
import { ZSsoConfig } from '../sso/sso-config.js';

function engineAgent<F extends TAgentFramework>(framework: F) {
  return z.strictObject({
    id: ZUuid,
    name: ZResourceName,
    // What the agent is for, as its MCP tool and A2A card describe it; absent in configs published before.
    description: z.string().max(DESCRIPTION_MAX_LENGTH).nullable().default(null),
    workspace_id: ZUuid,
    framework: z.literal(framework),
    config: AGENT_CONFIG_BY_FRAMEWORK[framework],
  });
}

export const ZEngineAgent = z.discriminatedUnion('framework', [
  engineAgent('LLM'),
  engineAgent('LANGGRAPH'),
  engineAgent('CUSTOM'),
]);
export type TEngineAgent = z.infer<typeof ZEngineAgent>;

export const ZEngineIntegration = z.discriminatedUnion('provider', [
  ZWhatsAppIntegrationConfig.extend({ id: ZUuid }),
  ZSlackIntegrationConfig.extend({ id: ZUuid }),
  ZTelegramIntegrationConfig.extend({ id: ZUuid }),
  ZDiscordIntegrationConfig.extend({ id: ZUuid }),
  ZTeamsIntegrationConfig.extend({ id: ZUuid }),
  ZGoogleChatIntegrationConfig.extend({ id: ZUuid }),
]);
export type TEngineIntegration = z.infer<typeof ZEngineIntegration>;

export const ZEngineConfig = z
  .strictObject({
    agent: ZEngineAgent,
    mcp_servers: z.array(ZMcpServerConfig),
    integrations: z.array(ZEngineIntegration),
    sso: ZSsoConfig.nullable(),
    // Absent in configs published before observability existed.
    observability: ZObservabilityConfig.nullable().default(null),
    // The agent's and its workspace's budgets, and its model's price; absent before budgets existed.
    budgets: ZEngineBudgets.default({ agent: null, workspace: null, price: null }),
    // The agents its MCP servers of transport "agent" call, and the credential it asks for their tokens
    // with; null when it calls none (and in configs published before agents were tools).
    agent_calls: ZEngineAgentCalls.nullable().default(null),
    // The agent's guardrails, then its workspace's defaults it does not already name; absent before guardrails.
    guardrails: z
      .array(ZEngineGuardrail)
      .max(2 * AGENT_RESOURCE_IDS_MAX_ITEMS)
      .default(() => []),
  })
  .meta({ id: 'EngineConfig', description: 'The derived, read-only configuration an agent engine runs' });
export type TEngineConfig = z.infer<typeof ZEngineConfig>;
export type TEngineConfigInput = z.input<typeof ZEngineConfig>;
