// The tool_arguments and tool_result rules around an agent's toolbox: every framework calls its MCP
// tools through AgentToolbox, so guarding the toolbox guards them all. A blocked call never reaches
// the tool; a blocked result never reaches the model: it reads a refusal instead, as an error outcome.
import type { AgentToolbox, ToolOutcome } from '../agents/agent-runtime.js';
import type { AgentGuardrails, GuardrailHit, ReportGuardrailHit } from './guardrail-types.js';

/** What the model reads instead of a blocked call's outcome. */
export function toolRefusal(hit: GuardrailHit, what: 'call' | 'result'): ToolOutcome {
  return {
    isError: true,
    text: `The ${what} was refused by guardrail "${hit.guardrail.name}" (rule "${hit.rule.name}").`,
  };
}

type CheckString = (text: string) => Promise<string>;

class Blocked {
  constructor(readonly hit: GuardrailHit) {}
}

/** A copy of `value` with every string checked (and redacted where a rule said so). */
async function checkStrings(value: unknown, check: CheckString): Promise<unknown> {
  if (typeof value === 'string') return check(value);
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) items.push(await checkStrings(item, check));
    return items;
  }
  if (typeof value === 'object' && value !== null) {
    const entries: [string, unknown][] = [];
    for (const [key, item] of Object.entries(value)) entries.push([key, await checkStrings(item, check)]);
    // fromEntries defines each key: assigning a parsed `__proto__` key would set the copy's prototype
    // instead, and that argument would vanish from the call unchecked.
    return Object.fromEntries(entries);
  }
  return value;
}

/** The arguments with each string value checked by the tool_arguments rules, or the hit that blocked one. */
export async function guardToolArguments(
  args: Record<string, unknown>,
  guardrails: AgentGuardrails,
  report: ReportGuardrailHit,
  signal: AbortSignal,
): Promise<{ args: Record<string, unknown> } | { blocked: GuardrailHit }> {
  const check: CheckString = async (text) => {
    const verdict = await guardrails.checkText('tool_arguments', text, report, signal, 'without_judges');
    if (verdict.blocked !== undefined) throw new Blocked(verdict.blocked);
    return verdict.text;
  };
  let checked: Record<string, unknown>;
  try {
    checked = (await checkStrings(args, check)) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof Blocked) return { blocked: error.hit };
    throw error;
  }
  // A model judge reads the whole call once (as the rules before it left it), not each string.
  const judged = await guardrails.checkText('tool_arguments', JSON.stringify(checked), report, signal, 'judges');
  return judged.blocked === undefined ? { args: checked } : { blocked: judged.blocked };
}

/**
 * The toolbox with the tool positions' rules applied to each call; the toolbox itself when no rule
 * checks either position. Whatever else the toolbox has (an MCP toolset's statuses, its close, a call's
 * run context) is kept. `signal`, when given, also stops a check (a model judge) the call's own signal
 * does not.
 */
export function guardToolbox<Toolbox extends AgentToolbox>(
  toolbox: Toolbox,
  guardrails: AgentGuardrails,
  report: ReportGuardrailHit,
  signal?: AbortSignal,
): Toolbox {
  const checksArguments = guardrails.checks('tool_arguments');
  const checksResult = guardrails.checks('tool_result');
  if (!checksArguments && !checksResult) return toolbox;
  const callTool = toolbox.call as (...args: unknown[]) => Promise<ToolOutcome>;
  const call = async (
    name: string,
    args: Record<string, unknown>,
    callSignal: AbortSignal,
    ...context: unknown[]
  ): Promise<ToolOutcome> => {
    const checkSignal = signal === undefined ? callSignal : AbortSignal.any([signal, callSignal]);
    let checkedArgs = args;
    if (checksArguments) {
      const checked = await guardToolArguments(args, guardrails, report, checkSignal);
      if ('blocked' in checked) return toolRefusal(checked.blocked, 'call');
      checkedArgs = checked.args;
    }
    const outcome = await callTool(name, checkedArgs, callSignal, ...context);
    if (!checksResult) return outcome;
    const verdict = await guardrails.checkText('tool_result', outcome.text, report, checkSignal);
    if (verdict.blocked !== undefined) return toolRefusal(verdict.blocked, 'result');
    return verdict.text === outcome.text ? outcome : { ...outcome, text: verdict.text };
  };
  return { ...toolbox, call };
}
