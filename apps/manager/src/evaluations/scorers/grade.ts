// What grading one sample gives, before the result is labelled with its scorer's name and kind.
import type { TScorerResult, TScoringSample } from '@agentplane/contracts';

export type Grade = Pick<TScorerResult, 'score' | 'reason' | 'judge_tokens'>;

/** A scorer made ready once (its regular expression or schema compiled), then used on many samples. */
export type CompiledScorer = (sample: TScoringSample) => Grade | Promise<Grade>;

const QUOTE_MAX_CHARS = 60;

/** `text` quoted for a reason, cut short (by code point) so that a reason never repeats a whole reply. */
export function quote(text: string): string {
  const characters = Array.from(text);
  const shown = characters.length > QUOTE_MAX_CHARS ? `${characters.slice(0, QUOTE_MAX_CHARS).join('')}…` : text;
  return JSON.stringify(shown);
}

export const NO_REPLY: Grade = { score: 0, reason: 'The run gave no reply' };
