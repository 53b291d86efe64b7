// What a guardrail body may say, through the API: each refusal is a 422 with the path of the field at
// fault; the common resource behaviour is in resources/resources.test.ts.
import { GUARDRAIL_MATCH_MAX_CHARS, GUARDRAIL_RULES_MAX_ITEMS, ZGuardrail } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { guardrailBody } from '../testing/resource-fixtures.js';

let ctx: ManagerTestContext;
let user: SignedInUser;
beforeAll(async () => {
  ctx = await startManagerTestApp();
  user = await signUpUser(ctx.app);
});
afterAll(() => ctx?.close());

const COLLECTION = '/api/v1/guardrails/';
const rule = (overrides: Record<string, unknown>) => ({
  name: 'r',
  kind: 'pattern',
  phrases: ['banned'],
  position: 'output',
  action: 'block',
  ...overrides,
});
const withRules = (...rules: Record<string, unknown>[]) => guardrailBody({ rules });

/** The 422's errors: each with the path at fault and its message. */
async function refusedErrors(body: object): Promise<{ path: string; message: string }[]> {
  const response = await user.agent.post(COLLECTION).send(body);
  expectProblemShape(response, 422);
  return response.body.errors;
}

describe('regular expressions', () => {
  it.each([
    ['a nested quantifier that backtracks catastrophically in a backtracking engine', '(a+)+$', /unbounded/],
    ['a backreference, which RE2 does not run', '(a)\\1', /Not an RE2 regular expression/],
    ['a lookahead', 'a(?=b)', /Not an RE2 regular expression/],
    ['an unbounded repetition', '\\d+', /unbounded/],
    ['a match longer than the hold-back', `a{${GUARDRAIL_MATCH_MAX_CHARS + 1}}`, /over 512/],
    ['one that matches the empty string', 'a{0,3}', /empty string/],
    ['a syntax error', '(a', /Not an RE2 regular expression/],
  ])('refuses %s, with the path of the regex and why', async (_case, source, why) => {
    const errors = await refusedErrors(withRules(rule({ phrases: [], regexes: ['ok{1,3}', source] })));
    expect(errors).toEqual([{ path: 'guardrail.rules[0].regexes[1]', message: expect.stringMatching(why) }]);
  });

  it('accepts a bounded one and keeps it as written', async () => {
    const source = '\\b(?:insider|secret) tip\\d{1,20}\\b';
    const response = await user.agent.post(COLLECTION).send(withRules(rule({ phrases: [], regexes: [source] })));
    expect(response.status).toBe(201);
    expect(ZGuardrail.parse(response.body).guardrail.rules[0]).toMatchObject({ regexes: [source] });
  });
});

describe('rules', () => {
  it.each([
    ['an unknown kind', rule({ kind: 'vibes' }), 'guardrail.rules[0].kind', /kind must be one of/],
    ['an unknown position', rule({ position: 'everywhere' }), 'guardrail.rules[0].position', /./],
    ['an unknown action', rule({ action: 'shout' }), 'guardrail.rules[0].action', /./],
    ['a blank name', rule({ name: '  ' }), 'guardrail.rules[0].name', /./],
    ['a pattern with neither phrase nor regex', rule({ phrases: [] }), 'guardrail.rules[0].phrases', /at least one/],
    ['a blank phrase', rule({ phrases: [' '] }), 'guardrail.rules[0].phrases[0]', /./],
    ['a phrase too long', rule({ phrases: ['x'.repeat(201)] }), 'guardrail.rules[0].phrases[0]', /./],
    [
      'a pii rule with no entity',
      rule({ kind: 'pii', phrases: undefined, entities: [] }),
      'guardrail.rules[0].entities',
      /./,
    ],
    [
      'a pii rule with an unknown entity',
      rule({ kind: 'pii', phrases: undefined, entities: ['shoe_size'] }),
      'guardrail.rules[0].entities[0]',
      /./,
    ],
    [
      'a pii rule naming an entity twice',
      rule({ kind: 'pii', phrases: undefined, entities: ['email', 'email'] }),
      'guardrail.rules[0].entities',
      /Duplicate entity/,
    ],
    [
      'a max_length of 0',
      rule({ kind: 'max_length', phrases: undefined, max_chars: 0 }),
      'guardrail.rules[0].max_chars',
      /./,
    ],
    [
      'a max_length that is not an integer',
      rule({ kind: 'max_length', phrases: undefined, max_chars: 1.5 }),
      'guardrail.rules[0].max_chars',
      /./,
    ],
    [
      'a model judge without a rubric',
      rule({ kind: 'model_judge', phrases: undefined, position: 'input' }),
      'guardrail.rules[0].rubric',
      /./,
    ],
    [
      'a model judge that redacts',
      rule({ kind: 'model_judge', phrases: undefined, rubric: 'No insults', position: 'input', action: 'redact' }),
      'guardrail.rules[0].action',
      /block or log/,
    ],
    [
      'a model judge that blocks the output',
      rule({ kind: 'model_judge', phrases: undefined, rubric: 'No insults', position: 'output', action: 'block' }),
      'guardrail.rules[0].action',
      /only log/,
    ],
    [
      'a field of another kind',
      rule({ kind: 'prompt_injection', phrases: undefined, max_chars: 5 }),
      'guardrail.rules[0].max_chars',
      /max_chars/,
    ],
  ])('refuses %s', async (_case, bad, path, why) => {
    const errors = await refusedErrors(withRules(bad));
    expect(errors).toEqual(expect.arrayContaining([{ path, message: expect.stringMatching(why) }]));
  });

  it('refuses two rules of one name, naming the second', async () => {
    const errors = await refusedErrors(withRules(rule({}), rule({ kind: 'prompt_injection', phrases: undefined })));
    expect(errors).toEqual([{ path: 'guardrail.rules[1].name', message: 'Duplicate rule name' }]);
  });

  it('refuses no rule at all, and more than the most', async () => {
    expect(await refusedErrors(withRules())).toEqual([{ path: 'guardrail.rules', message: expect.any(String) }]);
    const many = Array.from({ length: GUARDRAIL_RULES_MAX_ITEMS + 1 }, (_, index) => rule({ name: `r${index}` }));
    expect(await refusedErrors(withRules(...many))).toEqual([{ path: 'guardrail.rules', message: expect.any(String) }]);
  });

  it('refuses a huge description and a huge rubric with 422, not a server error', async () => {
    const description = await refusedErrors(guardrailBody({ description: 'x'.repeat(100_000) }));
    expect(description.map((error) => error.path)).toEqual(['guardrail.description']);
    const rubric = await refusedErrors(
      withRules(rule({ kind: 'model_judge', phrases: undefined, rubric: 'x'.repeat(100_000), position: 'input' })),
    );
    expect(rubric.map((error) => error.path)).toEqual(['guardrail.rules[0].rubric']);
  });

  it('accepts one rule of each kind with its defaults filled in', async () => {
    const response = await user.agent.post(COLLECTION).send(
      withRules(
        rule({ name: 'words' }),
        {
          name: 'cards',
          kind: 'pii',
          entities: ['payment_card', 'iban', 'es_dni'],
          position: 'output',
          action: 'redact',
        },
        { name: 'injection', kind: 'prompt_injection', position: 'tool_result', action: 'block' },
        { name: 'long', kind: 'max_length', max_chars: 10_000, position: 'input', action: 'block' },
        { name: 'judge', kind: 'model_judge', rubric: 'No legal advice', position: 'input', action: 'log' },
      ),
    );
    expect(response.status).toBe(201);
    const { guardrail } = ZGuardrail.parse(response.body);
    expect(guardrail.description).toBeNull();
    expect(guardrail.rules.map((each) => each.kind)).toEqual([
      'pattern',
      'pii',
      'prompt_injection',
      'max_length',
      'model_judge',
    ]);
    expect(guardrail.rules[0]).toEqual(rule({ name: 'words', regexes: [], case_sensitive: false }));
  });
});
