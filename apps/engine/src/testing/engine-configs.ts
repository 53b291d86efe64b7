// Valid engine_config inputs for tests, with overridable parts.
import { randomUUID } from 'node:crypto';
import type {
  TEngineConfigInput,
  TMcpServerConfigInput,
  TObservabilityConfigInput,
  TSsoConfigInput,
  TToolPolicy,
} from '@agentplane/contracts';

export type TestConfigOptions = {
  agentId?: string;
  workspaceId?: string;
  name?: string;
  model?: { provider: 'openai' | 'mock'; name: string; baseUrl?: string; apiKey?: string; apiKeyEnv?: string };
  instructions?: string;
  maxSteps?: number;
  mcpServers?: TMcpServerConfigInput[];
  tools?: TToolPolicy;
  sso?: TSsoConfigInput | null;
  observability?: TObservabilityConfigInput | null;
};

export function makeLlmEngineConfig(options: TestConfigOptions = {}): TEngineConfigInput {
  return {
    agent: {
      id: options.agentId ?? randomUUID(),
      name: options.name ?? 'test agent',
      workspace_id: options.workspaceId ?? randomUUID(),
      framework: 'LLM',
      config: {
        model: options.model ?? { provider: 'mock', name: 'echo' },
        ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
        ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
        ...(options.tools === undefined ? {} : { tools: options.tools }),
      },
    },
    mcp_servers: options.mcpServers ?? [],
    integrations: [],
    sso: options.sso ?? null,
    observability: options.observability ?? null,
  };
}
