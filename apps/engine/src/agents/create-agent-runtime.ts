// Picks the runtime for the agent's framework. LANGGRAPH and CUSTOM load the operator's module; one that
// does not load is reported, not guessed at: its runs answer 503 and /health says why.
import type { TEngineConfig, TLlmAgentConfig } from '@agentplane/contracts';
import type { Logger } from '@agentplane/server-kit';
import type { AgentDb } from '../database/agent-db.js';
import { logFailure, withErrorId } from '../errors/log-failure.js';
import { AgentRunError, type AgentRuntime, type AgentToolbox } from './agent-runtime.js';
import { loadCustomAgent } from './custom/custom-agent.js';
import { loadLangGraphAgent } from './langgraph/langgraph-agent.js';
import type { ChatModel } from './llm/chat-model.js';
import { createLlmAgent } from './llm/llm-agent.js';
import { createMockChatModel } from './llm/mock-chat-model.js';
import {
  type ModelCredentials,
  ModelKeyVariableRefused,
  type ModelSettings,
  resolveModelCredentials,
} from './llm/model-credentials.js';
import { createOpenAiChatModel } from './llm/openai-chat-model.js';
import { AgentLoadError, type AgentLoadErrorCode } from './modules/load-agent-module.js';

/** Why the module did not load, as clients see it: the class of failure, and the id its logged reason has. */
export type AgentLoadFailure = { code: AgentLoadErrorCode; errorId: string };

export type AgentRuntimeChoice = { runtime: AgentRuntime } | { runtime: undefined; loadFailure: AgentLoadFailure };

/** A load failure in a sentence for a client; the reason (paths, what the import threw) is in the log only. */
export function describeLoadFailure(failure: AgentLoadFailure | undefined): string {
  if (failure === undefined) return 'No agent is loaded.';
  return withErrorId(`The agent's module could not be loaded (${failure.code}).`, failure.errorId);
}

export type AgentRuntimeOptions = {
  /** The model keys and base URL the operator provides. */
  models: ModelSettings;
  logger: Logger;
  /** The config version, which makes module imports fresh. */
  version: number;
  /** Where `path.js:export` references are resolved. */
  agentsDir: string;
  /** LangGraph thread memory goes to PostgreSQL when set, to process memory otherwise. */
  db: AgentDb | undefined;
  /** The egress policy's fetch, for a model `baseUrl` the tenant chose. */
  egressFetch: typeof globalThis.fetch;
  toolbox: AgentToolbox;
};

// A model whose key variable the operator did not allow: every run ends with a generic error, and
// the log (not the client) says which setting refused it.
function createRefusedChatModel(): ChatModel {
  return {
    stream: () => {
      throw new AgentRunError("The agent's model is not available on this engine.", 'model_unavailable');
    },
  };
}

/** What a model client needs of the engine: the operator's keys, the log, and the egress policy's fetch. */
export type ChatModelOptions = Pick<AgentRuntimeOptions, 'models' | 'logger' | 'egressFetch'>;

/** The LLM agent's model client, as its runs use it (and as a guardrail's model judge does). */
export function createChatModel(config: TLlmAgentConfig, { models, logger, egressFetch }: ChatModelOptions): ChatModel {
  const { model } = config;
  if (model.provider === 'mock') return createMockChatModel();
  let credentials: ModelCredentials;
  try {
    credentials = resolveModelCredentials(model, models);
  } catch (error) {
    if (!(error instanceof ModelKeyVariableRefused)) throw error;
    logger.error({ variable: error.variable }, `${error.message}: the agent's runs are refused`);
    return createRefusedChatModel();
  }
  if (credentials.apiKey === undefined) {
    // Local servers (Ollama, vLLM) need no key, so a missing one is not fatal; a real provider will answer 401.
    logger.warn('no API key for the model provider: requests are sent without one');
  }
  return createOpenAiChatModel({
    model: model.name,
    apiKey: credentials.apiKey,
    baseUrl: credentials.baseUrl,
    temperature: config.temperature,
    // Only the tenant's baseUrl is policed; OPENAI_BASE_URL is the operator's.
    ...(model.baseUrl === undefined ? {} : { fetch: egressFetch }),
  });
}

function loadRuntime(config: TEngineConfig, options: AgentRuntimeOptions): Promise<AgentRuntime> | AgentRuntime {
  const { agent } = config;
  const common = { agentsDir: options.agentsDir, version: options.version, toolbox: options.toolbox };
  switch (agent.framework) {
    case 'LLM':
      return createLlmAgent({
        model: createChatModel(agent.config, options),
        modelRef: { provider: agent.config.model.provider, name: agent.config.model.name },
        instructions: agent.config.instructions,
        maxSteps: agent.config.maxSteps,
      });
    case 'LANGGRAPH':
      return loadLangGraphAgent({
        ...common,
        agentId: agent.id,
        reference: agent.config.graph,
        db: options.db,
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
    const errorId = logFailure(options.logger, 'error', error, 'the agent module could not be loaded');
    return { runtime: undefined, loadFailure: { code: error.code, errorId } };
  }
}
