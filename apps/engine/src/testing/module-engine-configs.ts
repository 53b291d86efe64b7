// Engine configs for agents whose code is a module: LANGGRAPH graphs and CUSTOM agent factories.
import { randomUUID } from 'node:crypto';
import type {
  TEngineConfigInput,
  TMcpServerConfigInput,
  TObservabilityConfigInput,
  TToolPolicy,
} from '@agentplane/contracts';

export type ModuleConfigOptions = {
  agentId?: string;
  workspaceId?: string;
  name?: string;
  mcpServers?: TMcpServerConfigInput[];
  observability?: TObservabilityConfigInput | null;
  tools?: TToolPolicy;
};

function makeModuleConfig(
  framework: 'LANGGRAPH' | 'CUSTOM',
  config: { graph: string } | { module: string },
  options: ModuleConfigOptions,
): TEngineConfigInput {
  return {
    agent: {
      id: options.agentId ?? randomUUID(),
      name: options.name ?? `test ${framework.toLowerCase()} agent`,
      workspace_id: options.workspaceId ?? randomUUID(),
      framework,
      config: options.tools === undefined ? config : { ...config, tools: options.tools },
    } as TEngineConfigInput['agent'],
    mcp_servers: options.mcpServers ?? [],
    integrations: [],
    sso: null,
    observability: options.observability ?? null,
  };
}

/** A CUSTOM agent: `module` is `path.js:exportName` under ENGINE_AGENTS_DIR. */
export const makeCustomEngineConfig = (module: string, options: ModuleConfigOptions = {}) =>
  makeModuleConfig('CUSTOM', { module }, options);

/** A LANGGRAPH agent: `graph` is `path.js:exportName` under ENGINE_AGENTS_DIR. */
export const makeLangGraphEngineConfig = (graph: string, options: ModuleConfigOptions = {}) =>
  makeModuleConfig('LANGGRAPH', { graph }, options);
