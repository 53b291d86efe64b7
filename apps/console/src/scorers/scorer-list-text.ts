// A scorer list as JSON text, read the way the server will: the contracts' ZScorerList says what is wrong
// before anything is sent (the API's answer says the rest, a judge's unreachable server for one).
import { type TScorer, ZScorerList } from '@agentplane/contracts';

export type ScorerListReading = { scorers: TScorer[] } | { problem: string };

function tryParse(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

export function readScorerList(text: string): ScorerListReading {
  const json = tryParse(text);
  if (!json) return { problem: 'This is not valid JSON.' };
  const parsed = ZScorerList.safeParse(json.value);
  if (parsed.success) return { scorers: parsed.data };
  const problem = parsed.error.issues
    .map((issue) => `${['scorers', ...issue.path].join('.')}: ${issue.message}`)
    .join('; ');
  return { problem };
}

/**
 * The text as a body's `scorers` value: its JSON when it parses, else the text itself, which the body's
 * schema then refuses at `scorers` (a form checks the whole body at once).
 */
export function parseScorerJson(text: string): unknown {
  return tryParse(text)?.value ?? text;
}

/** The list in `text` as values, or [] when it is not yet a JSON array (for naming an inserted template). */
export function looseScorers(text: string): { name?: unknown }[] {
  const value = tryParse(text)?.value;
  return Array.isArray(value) ? (value as { name?: unknown }[]) : [];
}

/** The list as the editor first shows it. */
export const formatScorerList = (scorers: readonly unknown[]) => JSON.stringify(scorers, null, 2);
