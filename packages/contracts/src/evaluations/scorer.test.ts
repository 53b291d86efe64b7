// The scorer contract: defaults, what is refused at write time, and the secrets walker the manager
// seals and masks a stored scorer with.
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { mapScorerSecrets } from '../secrets/secret-fields.js';
import { readJudgeAnswer } from './judge-answer.js';
import { SCORER_JSON_SCHEMA_MAX_BYTES, type TScorer, ZScorer, ZScorerList } from './scorer.js';

describe('ZScorer', () => {
  it('fills in the defaults of each kind', () => {
    expect(ZScorer.parse({ name: 'e', kind: 'exact_match' })).toEqual({
      name: 'e',
      kind: 'exact_match',
      case_sensitive: true,
      normalize_whitespace: false,
    });
    expect(
      ZScorer.parse({
        name: 'j',
        kind: 'model_judge',
        rubric: 'r',
        model: { provider: 'openai', name: 'm', baseUrl: 'https://x.example/v1' },
      }),
    ).toMatchObject({ scale: { min: 1, max: 5 } });
  });

  it('names the kinds when the kind is unknown', () => {
    const parsed = ZScorer.safeParse({ name: 'x', kind: 'vibes' });
    expect(parsed.error?.issues[0]?.message).toMatch(/^kind must be one of: exact_match, contains, regex/);
  });

  it('refuses a JSON Schema too large or too deep', () => {
    const large = { description: 'x'.repeat(SCORER_JSON_SCHEMA_MAX_BYTES) };
    expect(ZScorer.safeParse({ name: 'j', kind: 'json_schema', schema: large }).success).toBe(false);
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 20; i++) deep = { items: deep };
    expect(ZScorer.safeParse({ name: 'j', kind: 'json_schema', schema: deep }).success).toBe(false);
  });

  it('refuses duplicate names in a list', () => {
    const parsed = ZScorerList.safeParse([
      { name: 'a', kind: 'latency', max: 1 },
      { name: 'a', kind: 'tokens', max: 1 },
    ]);
    expect(parsed.error?.issues).toEqual([expect.objectContaining({ path: [1, 'name'] })]);
  });
});

describe('mapScorerSecrets', () => {
  it("visits a model judge's key and the query of its base URL, and nothing of other kinds", () => {
    const judge = ZScorer.parse({
      name: 'j',
      kind: 'model_judge',
      rubric: 'r',
      model: { provider: 'openai', name: 'm', baseUrl: 'https://x.example/v1?key=q', apiKey: 'sk-1' },
    });
    const seen: string[] = [];
    const sealed = mapScorerSecrets(judge, (value, path) => {
      seen.push(`${path.join('.')}=${value}`);
      return `sealed(${value})`;
    }) as Extract<TScorer, { kind: 'model_judge' }>;
    expect(seen.sort()).toEqual(['model.apiKey=sk-1', 'model.baseUrl=key=q']);
    expect(sealed.model).toMatchObject({ apiKey: 'sealed(sk-1)', baseUrl: 'https://x.example/v1?sealed(key=q)' });
    const latency = ZScorer.parse({ name: 'l', kind: 'latency', max: 5 });
    expect(mapScorerSecrets(latency, () => 'changed')).toBe(latency);
  });
});

describe('readJudgeAnswer', () => {
  const shape = z.object({ score: z.number() });
  it('reads one JSON object of the shape, in a code fence or not, and nothing else', () => {
    expect(readJudgeAnswer(' {"score": 3} ', shape)).toEqual({ score: 3 });
    expect(readJudgeAnswer('```json\n{"score": 3}\n```', shape)).toEqual({ score: 3 });
    for (const answer of ['', 'score: 3', '{"score": "3"}', '[{"score": 3}]', 'null']) {
      expect(readJudgeAnswer(answer, shape)).toBeUndefined();
    }
  });
});
