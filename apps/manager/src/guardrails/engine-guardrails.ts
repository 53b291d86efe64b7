// engine_config.guardrails: the agent's own guardrails, then its workspace's defaults it does not already
// name, each once.
import type { TAgentFramework, TEngineGuardrail, TGuardrailConfig } from '@agentplane/contracts';
import { applicableTo } from './model-judges.js';

export type GuardrailRow = { id: string; name: string; config: unknown };

export function engineGuardrailsOf(
  framework: TAgentFramework,
  own: GuardrailRow[],
  defaults: GuardrailRow[],
): TEngineGuardrail[] {
  const named = new Set(own.map((row) => row.id));
  return [...own, ...defaults.filter((row) => !named.has(row.id))].flatMap((row) => {
    const config = applicableTo(framework, row.config as TGuardrailConfig);
    return config === null ? [] : [{ id: row.id, name: row.name, ...config }];
  });
}
