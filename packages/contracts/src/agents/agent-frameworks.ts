// The typed `agent` object of each framework an engine can host.
import { z } from 'zod';
import { EGRESS_RULE, ZNonBlankString } from '../common/primitives.js';

export const AGENT_FRAMEWORKS = ['LLM', 'LANGGRAPH', 'CUSTOM'] as const;
export type TAgentFramework = (typeof AGENT_FRAMEWORKS)[number];

export const LLM_PROVIDERS = ['openai', 'mock'] as const;
export const LLM_MAX_STEPS_DEFAULT = 10;

export const ZLlmAgentConfig = z
  .strictObject({
    model: z.strictObject({
      // `openai` speaks the OpenAI chat-completions API: with `baseUrl` that is also vLLM, Ollama or LM Studio.
      // `mock` is a deterministic model for demos and tests.
      provider: z.enum(LLM_PROVIDERS),
      name: ZNonBlankString,
      baseUrl: z
        .url({ protocol: /^https?$/ })
        .optional()
        .describe(`An OpenAI-compatible API (vLLM, Ollama…) instead of the operator's. ${EGRESS_RULE}`),
      // The name of the engine's environment variable holding the API key: the key never enters the database.
      apiKeyEnv: z
        .string()
        .regex(/^[A-Z_][A-Z0-9_]*$/, 'Must be an environment variable name such as OPENAI_API_KEY')
        .optional(),
    }),
    instructions: z.string().max(100_000).optional(),
    temperature: z.number().min(0).max(2).optional(),
    maxSteps: z.number().int().min(1).max(100).default(LLM_MAX_STEPS_DEFAULT),
  })
  .meta({ id: 'LlmAgentConfig', description: 'A built-in tool-calling agent defined by configuration' });
export type TLlmAgentConfig = z.infer<typeof ZLlmAgentConfig>;

/** `path/to/module.js:exportName`, relative to the engine's agents directory or absolute. */
export const ZModuleReference = z
  .string()
  .regex(/^[^:\0]+\.(?:m?js|cjs):[A-Za-z_$][\w$]*$/, 'Must look like "path/to/module.js:exportName"');

export const ZLangGraphAgentConfig = z
  .strictObject({ graph: ZModuleReference })
  .meta({ id: 'LangGraphAgentConfig', description: 'A LangGraph.js graph shipped in the engine image' });
export type TLangGraphAgentConfig = z.infer<typeof ZLangGraphAgentConfig>;

export const ZCustomAgentConfig = z
  .strictObject({ module: ZModuleReference })
  .meta({ id: 'CustomAgentConfig', description: 'A module exporting an AG-UI AbstractAgent factory' });
export type TCustomAgentConfig = z.infer<typeof ZCustomAgentConfig>;

export const AGENT_CONFIG_BY_FRAMEWORK = {
  LLM: ZLlmAgentConfig,
  LANGGRAPH: ZLangGraphAgentConfig,
  CUSTOM: ZCustomAgentConfig,
} as const;
