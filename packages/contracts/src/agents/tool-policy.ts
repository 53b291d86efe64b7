// Which of its MCP tools an agent may use, by patterns over the engine's tool names (`<server>__<tool>`,
// characters [A-Za-z0-9_-]). Matching lives here too, so the manager's docs and every engine agree on it.
import { z } from 'zod';
import { TOOL_PATTERN_MAX_LENGTH, TOOL_PATTERNS_MAX_ITEMS } from '../common/limits.js';

const PATTERN_RULE =
  'A pattern is a whole tool name `<server>__<tool>` (case-sensitive) in which `*` stands for any run of characters, ' +
  'none included: `github__*`, `*__delete_*`, `*`. Other characters are A-Z, a-z, 0-9, `_` and `-`. A pattern ' +
  'without `*` must contain `__`, since a name without it names no tool';

export const ZToolPattern = z
  .string()
  .min(1, { abort: true })
  .max(TOOL_PATTERN_MAX_LENGTH, { abort: true })
  .regex(/^[A-Za-z0-9_*-]+$/, { message: 'Must use only A-Z, a-z, 0-9, "_", "-" and "*"', abort: true })
  .refine((pattern) => pattern.includes('*') || pattern.includes('__'), {
    message: 'A pattern without "*" must be a whole "<server>__<tool>" name',
  })
  .meta({ description: PATTERN_RULE, examples: ['github__*', '*__delete_*'] });

/** What a call needing approval does where no human can answer. */
export const UNATTENDED_APPROVALS = ['reject', 'allow'] as const;

const patterns = (description: string) =>
  z.array(ZToolPattern).max(TOOL_PATTERNS_MAX_ITEMS).optional().meta({ description });

export const ZToolPolicy = z
  .strictObject({
    allow: patterns(
      'When given, only the tools matching one of these are offered to the model and may be called (an empty list allows none)',
    ),
    deny: patterns(
      'Tools matching any of these are never offered to the model, and a call to one is refused with a tool error; deny wins over allow',
    ),
    approval: patterns(
      'Tools that need a human approval before each call: a run watched by its client ends with an AG-UI interrupt ' +
        '(reason `tool_approval`) instead of calling one, and the run that resumes it calls the tool or tells the ' +
        'model it was refused. Checked by the built-in LLM agent',
    ),
    unattended: z
      .enum(UNATTENDED_APPROVALS)
      .optional()
      .meta({
        description:
          'What a call needing approval does in a run nobody watches (a background run, a WhatsApp message): ' +
          "`reject` (the default) gives the model a refusal as the tool result, `allow` calls the tool. The run's " +
          'events record which happened',
      }),
  })
  .meta({
    id: 'ToolPolicy',
    description: `Which of the agent's MCP tools it may use. ${PATTERN_RULE}.`,
    examples: [{ deny: ['*__delete_*'], approval: ['github__create_issue'] }],
  });
export type TToolPolicy = z.infer<typeof ZToolPolicy>;

/** Whether `name` matches `pattern` (`*`: any run of characters). The classic star-backtracking walk: never exponential, unlike a regex of `.*`s. */
export function matchesToolPattern(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  // The last `*` seen, and where in the name it started matching: on a mismatch it takes one more character.
  let star = -1;
  let starFrom = 0;
  while (n < name.length) {
    if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      starFrom = n;
    } else if (p < pattern.length && pattern[p] === name[n]) {
      p++;
      n++;
    } else if (star >= 0) {
      p = star + 1;
      n = ++starFrom;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/** Whether a call of the tool `name` waits for a human's approval under the policy. */
export function needsToolApproval(policy: TToolPolicy | undefined, name: string): boolean {
  return (policy?.approval ?? []).some((pattern) => matchesToolPattern(pattern, name));
}

/** Whether the policy lets the agent use the tool `name`: allowed (when there is an allow list) and not denied. */
export function isToolPermitted(policy: TToolPolicy | undefined, name: string): boolean {
  if (policy === undefined) return true;
  const matches = (list: readonly string[]) => list.some((pattern) => matchesToolPattern(pattern, name));
  if (policy.allow !== undefined && !matches(policy.allow)) return false;
  return !matches(policy.deny ?? []);
}
