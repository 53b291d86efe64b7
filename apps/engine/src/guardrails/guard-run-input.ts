// The input rules on a run's user messages, before any framework sees them: a blocked input never
// reaches the model, a redacted one reaches it redacted.
import type { InputContent, Message, RunAgentInput } from '@ag-ui/core';
import type { AgentGuardrails, GuardrailHit, ReportGuardrailHit } from './guardrail-types.js';

type Checked<T> = { value: T } | { blocked: GuardrailHit };

async function checkContent(
  content: string | InputContent[],
  check: (text: string) => Promise<Checked<string>>,
): Promise<Checked<string | InputContent[]>> {
  if (typeof content === 'string') return check(content);
  let parts: InputContent[] | undefined;
  for (const [index, part] of content.entries()) {
    if (part.type !== 'text') continue;
    const checked = await check(part.text);
    if ('blocked' in checked) return checked;
    if (checked.value === part.text) continue;
    parts ??= [...content];
    parts[index] = { ...part, text: checked.value };
  }
  return { value: parts ?? content };
}

/** The run input with its user messages checked (a copy where one was redacted), or the hit that blocked it. */
export async function guardRunInput(
  input: RunAgentInput,
  guardrails: AgentGuardrails,
  report: ReportGuardrailHit,
  signal: AbortSignal,
): Promise<{ input: RunAgentInput } | { blocked: GuardrailHit }> {
  if (!guardrails.checks('input')) return { input };
  const check = async (text: string): Promise<Checked<string>> => {
    const verdict = await guardrails.checkText('input', text, report, signal);
    return verdict.blocked === undefined ? { value: verdict.text } : { blocked: verdict.blocked };
  };
  let messages: Message[] | undefined;
  for (const [index, message] of input.messages.entries()) {
    if (message.role !== 'user') continue;
    const checked = await checkContent(message.content, check);
    if ('blocked' in checked) return checked;
    if (checked.value === message.content) continue;
    messages ??= [...input.messages];
    messages[index] = { ...message, content: checked.value } as Message;
  }
  return { input: messages === undefined ? input : { ...input, messages } };
}
