// Which key a model request carries, and where it goes. The tenant chooses `baseUrl`, so the operator's
// OPENAI_API_KEY may only follow a request to the operator's own OPENAI_BASE_URL; a tenant server gets
// the agent's own key, a variable the operator allowed in MODEL_API_KEY_ENVS, or no key at all.
import { isModelKeyVariableAllowed, type TLlmAgentConfig } from '@agentplane/contracts';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export type ModelSettings = {
  /** OPENAI_API_KEY. */
  operatorApiKey: string | undefined;
  /** OPENAI_BASE_URL, else OpenAI's API: the only place operatorApiKey is sent. */
  operatorBaseUrl: string;
  /** MODEL_API_KEY_ENVS with each variable's value (undefined when unset); no other variable is read. */
  keyVariables: ReadonlyMap<string, string | undefined>;
};

export type ModelCredentials = { baseUrl: string; apiKey: string | undefined };

/** The agent names a key variable the operator did not allow: the engine will not read it. */
export class ModelKeyVariableRefused extends Error {
  override name = 'ModelKeyVariableRefused';
  constructor(readonly variable: string) {
    super(`apiKeyEnv ${variable} is not listed in MODEL_API_KEY_ENVS`);
  }
}

const normalize = (url: string) => url.replace(/\/+$/, '');

export function resolveModelCredentials(model: TLlmAgentConfig['model'], settings: ModelSettings): ModelCredentials {
  const baseUrl = model.baseUrl ?? settings.operatorBaseUrl;
  if (model.apiKey !== undefined) return { baseUrl, apiKey: model.apiKey };
  if (model.apiKeyEnv !== undefined) {
    const allowed = [...settings.keyVariables.keys()];
    if (!isModelKeyVariableAllowed(model.apiKeyEnv, allowed)) throw new ModelKeyVariableRefused(model.apiKeyEnv);
    return { baseUrl, apiKey: settings.keyVariables.get(model.apiKeyEnv) };
  }
  const operatorServer = normalize(baseUrl) === normalize(settings.operatorBaseUrl);
  return { baseUrl, apiKey: operatorServer ? settings.operatorApiKey : undefined };
}
