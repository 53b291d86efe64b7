// Picks the runtime for the agent's framework. LANGGRAPH and CUSTOM load the operator's module; one that
// does not load is reported, not guessed at: its runs answer 503 and /health says why.
import type { TEngineConfig, TLlmAgentConfig } from '@agentplane/contracts';
import type { Logger } from '@agentplane/server-kit';
import type { AgentRuntime, AgentToolbox } from './agent-runtime.js';
import { loadCustomAgent } from './custom/custom-agent.js';
import { loadLangGraphAgent } from './langgraph/langgraph-agent.js';
import type { ChatModel } from './llm/chat-model.js';
import { createLlmAgent } from './llm/llm-agent.js';
import { createMockChatModel } from './llm/mock-chat-model.js';
import { createOpenAiChatModel } from './llm/openai-chat-model.js';
import { AgentLoadError } from './modules/load-agent-module.js';

export type AgentRuntimeChoice = { runtime: AgentRuntime } | { runtime: undefined; loadError: AgentLoadError };

export type AgentRuntimeOptions = {
  /** The engine's environment, where API keys live. */
  variables: NodeJS.ProcessEnv;
  logger: Logger;
  /** The config version, which makes module imports fresh. */
  version: number;
  /** Where `path.js:export` references are resolved. */
  agentsDir: string;
  /** LangGraph thread memory goes to PostgreSQL when set, to process memory otherwise. */
  databaseUrl: string | undefined;
  toolbox: AgentToolbox;
};

function createChatModel(config: TLlmAgentConfig, { variables, logger }: AgentRuntimeOptions): ChatModel {
  const { model } = config;
  if (model.provider === 'mock') return createMockChatModel();
  const keyVariable = model.apiKeyEnv ?? 'OPENAI_API_KEY';
  const apiKey = variables[keyVariable];
  if (apiKey === undefined || apiKey === '') {
    // Local servers (Ollama, vLLM) need no key, so a missing one is not fatal; a real provider will answer 401.
    logger.warn({ variable: keyVariable }, 'no API key for the model provider: requests are sent without one');
  }
  return createOpenAiChatModel({
    model: model.name,
    apiKey: apiKey || 'unset',
    baseUrl: model.baseUrl ?? (variables.OPENAI_BASE_URL || undefined),
    temperature: config.temperature,
  });
}

function loadRuntime(config: TEngineConfig, options: AgentRuntimeOptions): Promise<AgentRuntime> | AgentRuntime {
  const { agent } = config;
  const common = { agentsDir: options.agentsDir, version: options.version, toolbox: options.toolbox };
  switch (agent.framework) {
    case 'LLM':
      return createLlmAgent({
        model: createChatModel(agent.config, options),
        instructions: agent.config.instructions,
        maxSteps: agent.config.maxSteps,
      });
    case 'LANGGRAPH':
      return loadLangGraphAgent({
        ...common,
        agentId: agent.id,
        reference: agent.config.graph,
        databaseUrl: options.databaseUrl,
        logger: options.logger,
      });
    case 'CUSTOM':
      return loadCustomAgent({ ...common, config, reference: agent.config.module, logger: options.logger });
  }
}

export async function createAgentRuntime(
  config: TEngineConfig,
  options: AgentRuntimeOptions,
): Promise<AgentRuntimeChoice> {
  try {
    return { runtime: await loadRuntime(config, options) };
  } catch (error) {
    if (!(error instanceof AgentLoadError)) throw error;
    options.logger.error({ code: error.code, reason: error.message }, 'the agent module could not be loaded');
    return { runtime: undefined, loadError: error };
  }
}
