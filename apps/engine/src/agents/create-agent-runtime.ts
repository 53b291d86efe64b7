// Picks the runtime for the agent's framework. Frameworks without one yet are reported, not guessed at:
// their runs answer 501 and /agent/capabilities says so.
import type { TEngineAgent, TLlmAgentConfig } from '@agentplane/contracts';
import type { Logger } from '@agentplane/server-kit';
import type { AgentRuntime } from './agent-runtime.js';
import type { ChatModel } from './llm/chat-model.js';
import { createLlmAgent } from './llm/llm-agent.js';
import { createMockChatModel } from './llm/mock-chat-model.js';
import { createOpenAiChatModel } from './llm/openai-chat-model.js';

export type AgentRuntimeChoice = { runtime: AgentRuntime } | { runtime: undefined; unsupported: string };

export type AgentRuntimeOptions = {
  /** The engine's environment, where API keys live. */
  variables: NodeJS.ProcessEnv;
  logger: Logger;
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

export function createAgentRuntime(agent: TEngineAgent, options: AgentRuntimeOptions): AgentRuntimeChoice {
  switch (agent.framework) {
    case 'LLM':
      return {
        runtime: createLlmAgent({
          model: createChatModel(agent.config, options),
          instructions: agent.config.instructions,
          maxSteps: agent.config.maxSteps,
        }),
      };
    case 'LANGGRAPH':
    case 'CUSTOM':
      return { runtime: undefined, unsupported: `This engine does not run ${agent.framework} agents yet.` };
  }
}
