// A scorer list as JSON text, read the way the server will: the contracts' ZScorerList says what is wrong
// before anything is sent (the API's answer says the rest, a judge's unreachable server for one).
import { type TScorer, ZScorerList } from '@agentplane/contracts';

export type ScorerListReading = { scorers: TScorer[] } | { problem: string };

export function readScorerList(text: string): ScorerListReading {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: 'This is not valid JSON.' };
  }
  const parsed = ZScorerList.safeParse(value);
  if (parsed.success) return { scorers: parsed.data };
  const problem = parsed.error.issues
    .map((issue) => `${['scorers', ...issue.path].join('.')}: ${issue.message}`)
    .join('; ');
  return { problem };
}

/** The list as the editor first shows it. */
export const formatScorerList = (scorers: readonly unknown[]) => JSON.stringify(scorers, null, 2);

/** The list in `text` as values, or [] when it is not yet a JSON array (for naming an inserted template). */
export function looseScorers(text: string): { name?: unknown }[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as { name?: unknown }[]) : [];
  } catch {
    return [];
  }
}
