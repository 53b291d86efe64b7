// A model_judge rule asks the agent's own model provider for a verdict, and only LLM agents have a model
// (agent.config.model). So an agent of another framework may not reference such a guardrail itself (422
// naming the rule), and a workspace default's judges apply to LLM agents only (engine-guardrails.ts).
import type { TAgentFramework, TGuardrailConfig } from '@agentplane/contracts';
import type { Tx } from '@agentplane/db';
import { AppError, type FieldError } from '@agentplane/server-kit';

export function hasModel(framework: TAgentFramework | string): boolean {
  return framework === 'LLM';
}

function judgeRules(config: TGuardrailConfig): { index: number; name: string }[] {
  return config.rules.flatMap((rule, index) => (rule.kind === 'model_judge' ? [{ index, name: rule.name }] : []));
}

const NEEDS_A_MODEL = "a model judge calls the agent's model, and only LLM agents have one";

/** The agent write's guardrails, already locked FOR SHARE by the write (agent-references.ts). */
export async function refuseJudgesWithoutModel(
  tx: Tx,
  agent: { workspaceId: string; framework: TAgentFramework; guardrailIds: string[] },
): Promise<void> {
  if (hasModel(agent.framework) || agent.guardrailIds.length === 0) return;
  const rows = await tx.guardrail.findMany({
    where: { workspaceId: agent.workspaceId, id: { in: agent.guardrailIds } },
    select: { id: true, name: true, config: true },
  });
  const errors: FieldError[] = rows.flatMap((row) =>
    judgeRules(row.config as TGuardrailConfig).map((rule) => ({
      path: `resources.guardrail_ids[${agent.guardrailIds.indexOf(row.id)}]`,
      message: `Guardrail ${JSON.stringify(row.name)} has the model_judge rule ${JSON.stringify(rule.name)}: ${NEEDS_A_MODEL} (this agent is ${agent.framework})`,
    })),
  );
  if (errors.length > 0) {
    throw new AppError('validation_failed', 'The agent references a guardrail it cannot apply.', { errors });
  }
}

// Enough for a person to find the agents.
const AGENTS_NAMED_MAX = 5;

/**
 * A guardrail PATCH that adds a judge while an agent without a model references it. The PATCH holds the
 * guardrail's row lock, and agent writes lock it FOR SHARE before they read it, so neither misses the other.
 */
export async function refuseJudgesForAgentsWithoutModel(tx: Tx, id: string, config: TGuardrailConfig): Promise<void> {
  const judges = judgeRules(config);
  if (judges.length === 0) return;
  const agents = await tx.agent.findMany({
    where: { guardrails: { some: { guardrailId: id } }, framework: { not: 'LLM' } },
    select: { name: true },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: AGENTS_NAMED_MAX,
  });
  if (agents.length === 0) return;
  const named = agents.map((agent) => JSON.stringify(agent.name)).join(', ');
  throw new AppError('validation_failed', 'Agents without a model use this guardrail.', {
    errors: judges.map((rule) => ({
      path: `guardrail.rules[${rule.index}]`,
      message: `The model_judge rule ${JSON.stringify(rule.name)} cannot apply to agents ${named}: ${NEEDS_A_MODEL}`,
    })),
  });
}

/** The guardrail as an agent of `framework` applies it: without judges when it has no model; null when nothing is left. */
export function applicableTo(framework: TAgentFramework, config: TGuardrailConfig): TGuardrailConfig | null {
  if (hasModel(framework)) return config;
  const rules = config.rules.filter((rule) => rule.kind !== 'model_judge');
  if (rules.length === 0) return null;
  return rules.length === config.rules.length ? config : { ...config, rules };
}
