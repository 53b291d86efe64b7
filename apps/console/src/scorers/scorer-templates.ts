// A starting point per scorer kind, for the scorers editor: each one valid as it stands (ZScorer accepts
// it), so a person inserts one and changes what differs rather than learning the shape from the docs.
import type { TScorerInput, TScorerKind } from '@agentplane/contracts';

export const SCORER_TEMPLATES: Record<TScorerKind, TScorerInput> = {
  exact_match: { name: 'exact', kind: 'exact_match', normalize_whitespace: true },
  contains: { name: 'mentions', kind: 'contains', texts: ['invoice'], mode: 'all' },
  regex: { name: 'pattern', kind: 'regex', pattern: '\\d+', full_match: false },
  json_schema: { name: 'json', kind: 'json_schema', schema: { type: 'object', required: ['answer'] } },
  tool_called: { name: 'tool', kind: 'tool_called' },
  latency: { name: 'fast', kind: 'latency', target: 2000, max: 10000 },
  tokens: { name: 'short', kind: 'tokens', target: 500, max: 2000 },
  model_judge: {
    name: 'judge',
    kind: 'model_judge',
    rubric: 'The reply answers the question correctly and politely.',
    model: { provider: 'openai', name: 'gpt-4o-mini', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-…' },
    scale: { min: 1, max: 5 },
  },
};

/** The template under a name no scorer of `scorers` has yet (names are unique within a list). */
export function templateFor(kind: TScorerKind, scorers: readonly { name?: unknown }[]): TScorerInput {
  const template = SCORER_TEMPLATES[kind];
  const taken = new Set(scorers.map((scorer) => scorer.name));
  let name = template.name;
  for (let suffix = 2; taken.has(name); suffix++) name = `${template.name}_${suffix}`;
  return { ...template, name };
}
