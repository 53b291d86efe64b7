import {
  type TAgentFramework,
  type TEngineAgentCalls,
  type TEngineBudgets,
  type TEngineConfig,
  type TEngineGuardrail,
  type TIntegrationConfig,
  type TMcpServerConfig,
  type TObservabilityConfig,
  type TSsoConfig,
  ZEngineConfig,
} from '@agentplane/contracts';

export type EngineConfigSources = {
  agent: {
    id: string;
    name: string;
    description?: string | null;
    workspaceId: string;
    framework: TAgentFramework;
    config: unknown;
  };
  integrations: { id: string; integration: TIntegrationConfig }[];
  mcpServers: TMcpServerConfig[];
  sso: TSsoConfig | null;
  observability: TObservabilityConfig | null;
  budgets: TEngineBudgets;
  /** The agents it calls as tools, and the credential it asks for their tokens with (publishing/agent-calls.ts). */
  agentCalls: TEngineAgentCalls | null;
  /** The agent's own guardrails, then its workspace's defaults (guardrails/engine-guardrails.ts). */
  guardrails: TEngineGuardrail[];
};

/** The config an agent's engine runs: the agent plus the resolved resources it references, in plaintext. */
export function deriveEngineConfig(sources: EngineConfigSources): TEngineConfig {
  const { agent } = sources;
  // Parsed, not just assembled: what the manager publishes must be what every engine accepts.
  return ZEngineConfig.parse({
    agent: {
      id: agent.id,
      name: agent.name,
      description: agent.description ?? null,
      workspace_id: agent.workspaceId,
      framework: agent.framework,
      config: agent.config,
    },
    mcp_servers: sources.mcpServers,
    integrations: sources.integrations.map(({ id, integration }) => ({ id, ...integration })),
    sso: sources.sso,
    observability: sources.observability,
    budgets: sources.budgets,
    agent_calls: sources.agentCalls,
    guardrails: sources.guardrails,
  });
}
