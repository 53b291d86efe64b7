// The typed `agent` object of each framework an engine can host.
import { z } from 'zod';
import { IDENTIFIER_MAX_LENGTH, INSTRUCTIONS_MAX_LENGTH, PATH_MAX_LENGTH } from '../common/limits.js';
import { EGRESS_RULE, ZNonBlankString } from '../common/primitives.js';
import { SECRET_FIELD_RULE } from '../secrets/secret-mask.js';
import { makeSecretString } from '../secrets/secret-string.js';
import { makeSecretQueryUrl, SECRET_QUERY_RULE } from '../secrets/secret-url.js';
import { ZToolPolicy } from './tool-policy.js';

export const AGENT_FRAMEWORKS = ['LLM', 'LANGGRAPH', 'CUSTOM'] as const;
export type TAgentFramework = (typeof AGENT_FRAMEWORKS)[number];

export const MULTITASK_STRATEGIES = ['reject', 'enqueue', 'interrupt', 'rollback'] as const;
export type TMultitaskStrategy = (typeof MULTITASK_STRATEGIES)[number];

// What an engine does with a second run on a thread while one is going (LangGraph Platform's
// multitask_strategy). A request may override it in forwardedProps.agentplane.multitaskStrategy.
export const ZAgentRunsConfig = z
  .strictObject({
    multitaskStrategy: z.enum(MULTITASK_STRATEGIES).default('reject').meta({
      description:
        'A second run on a thread while one is going: `reject` it (409), `enqueue` it after the current one, `interrupt` the current one (its messages are kept) or `rollback` the current one (its messages are discarded)',
    }),
  })
  .meta({ id: 'AgentRunsConfig', description: "How the engine runs this agent's runs" });
export type TAgentRunsConfig = z.infer<typeof ZAgentRunsConfig>;

export const LLM_PROVIDERS = ['openai', 'mock'] as const;
export const LLM_MAX_STEPS_DEFAULT = 10;

/** An OpenAI-compatible server's base URL (its query a secret), as an LLM agent and a model judge name it. */
export const ZModelBaseUrl = makeSecretQueryUrl(z.url({ protocol: /^https?$/ }));
/** A model provider's API key, a secret. */
export const ZModelApiKey = makeSecretString(z.string().min(1));

const ZModel = z
  .strictObject({
    // `openai` speaks the OpenAI chat-completions API: with `baseUrl` that is also vLLM, Ollama or LM Studio.
    // `mock` is a deterministic model for demos and tests.
    provider: z.enum(LLM_PROVIDERS),
    name: ZNonBlankString.max(IDENTIFIER_MAX_LENGTH),
    baseUrl: ZModelBaseUrl.optional().meta({
      description: `An OpenAI-compatible server of the agent's own. Requests to it carry only the agent's apiKey (or the variable its apiKeyEnv names), never the operator's OPENAI_API_KEY, which goes to the operator's OPENAI_BASE_URL only. ${SECRET_QUERY_RULE} ${EGRESS_RULE}`,
    }),
    apiKey: ZModelApiKey.optional().meta({
      description: `The API key for this model, sealed at rest and in the published engine config. ${SECRET_FIELD_RULE}`,
    }),
    apiKeyEnv: z
      .string()
      .max(IDENTIFIER_MAX_LENGTH)
      .regex(/^[A-Z_][A-Z0-9_]*$/, 'Must be an environment variable name such as OPENAI_API_KEY')
      .optional()
      .meta({
        description:
          "The engine's environment variable holding the key; only a name the operator lists in MODEL_API_KEY_ENVS is accepted (none by default)",
      }),
  })
  .refine((model) => model.apiKey === undefined || model.apiKeyEnv === undefined, {
    path: ['apiKeyEnv'],
    message: 'Set apiKey or apiKeyEnv, not both',
  });

export const ZLlmAgentConfig = z
  .strictObject({
    model: ZModel,
    instructions: z.string().max(INSTRUCTIONS_MAX_LENGTH).optional(),
    temperature: z.number().min(0).max(2).optional(),
    maxSteps: z.number().int().min(1).max(100).default(LLM_MAX_STEPS_DEFAULT),
    runs: ZAgentRunsConfig.optional(),
    tools: ZToolPolicy.optional(),
  })
  .meta({ id: 'LlmAgentConfig', description: 'A built-in tool-calling agent defined by configuration' });
export type TLlmAgentConfig = z.infer<typeof ZLlmAgentConfig>;

/** Why the path of a module reference is refused, or undefined: it stays inside ENGINE_AGENTS_DIR, outside node_modules. */
function describeRefusedModulePath(reference: string): string | undefined {
  const modulePath = reference.slice(0, reference.lastIndexOf(':'));
  if (modulePath.startsWith('/') || modulePath.includes('\\')) {
    return "Must be a relative path with / separators, resolved inside the engine's ENGINE_AGENTS_DIR";
  }
  const segments = modulePath.split('/');
  if (segments.includes('..')) return 'Must not contain a ".." segment';
  if (segments.includes('node_modules')) return 'Must not lead into node_modules';
  return undefined;
}

/** `path/to/module.js:exportName`, relative to the engine's agents directory (ENGINE_AGENTS_DIR). */
export const ZModuleReference = z
  .string()
  .max(PATH_MAX_LENGTH)
  .regex(/^[^:\0]+\.(?:m?js|cjs):[A-Za-z_$][\w$]*$/, 'Must look like "path/to/module.js:exportName"')
  .superRefine((reference, ctx) => {
    const refused = describeRefusedModulePath(reference);
    if (refused !== undefined) ctx.addIssue({ code: 'custom', message: refused });
  })
  .meta({
    description:
      "`path/to/module.js:exportName`, relative to the engine's ENGINE_AGENTS_DIR: no absolute path, no `..` segment, no `node_modules`",
  });

export const ZLangGraphAgentConfig = z
  .strictObject({ graph: ZModuleReference, runs: ZAgentRunsConfig.optional(), tools: ZToolPolicy.optional() })
  .meta({ id: 'LangGraphAgentConfig', description: 'A LangGraph.js graph shipped in the engine image' });
export type TLangGraphAgentConfig = z.infer<typeof ZLangGraphAgentConfig>;

export const ZCustomAgentConfig = z
  .strictObject({ module: ZModuleReference, runs: ZAgentRunsConfig.optional(), tools: ZToolPolicy.optional() })
  .meta({ id: 'CustomAgentConfig', description: 'A module exporting an AG-UI AbstractAgent factory' });
export type TCustomAgentConfig = z.infer<typeof ZCustomAgentConfig>;

export const AGENT_CONFIG_BY_FRAMEWORK = {
  LLM: ZLlmAgentConfig,
  LANGGRAPH: ZLangGraphAgentConfig,
  CUSTOM: ZCustomAgentConfig,
} as const;
