import { describe, expect, it } from '@jest/globals';
import { budgetPeriodOf, ZBudget } from './budget.js';

describe('budgetPeriodOf', () => {
  it('is the UTC day holding the instant, whatever its time', () => {
    expect(budgetPeriodOf('day', new Date('2026-11-23T23:59:59.999Z'))).toEqual({
      start: new Date('2026-11-23T00:00:00Z'),
      end: new Date('2026-11-24T00:00:00Z'),
    });
  });

  it('is the UTC calendar month, across a year end and a leap February', () => {
    expect(budgetPeriodOf('month', new Date('2026-12-31T12:00:00Z'))).toEqual({
      start: new Date('2026-12-01T00:00:00Z'),
      end: new Date('2027-01-01T00:00:00Z'),
    });
    expect(budgetPeriodOf('month', new Date('2028-02-29T00:00:00Z')).end).toEqual(new Date('2028-03-01T00:00:00Z'));
  });
});

describe('ZBudget', () => {
  it('takes whole tokens and fractional dollars, with an optional trimmed WhatsApp reply', () => {
    expect(ZBudget.parse({ limit: 1000, unit: 'tokens', period: 'day' })).toEqual({
      limit: 1000,
      unit: 'tokens',
      period: 'day',
    });
    expect(ZBudget.parse({ limit: 2.5, unit: 'usd', period: 'month', whatsapp_reply: ' Later. ' })).toMatchObject({
      limit: 2.5,
      whatsapp_reply: 'Later.',
    });
  });

  it('refuses a fraction of a token, a limit that is not positive or too large, and unknown fields', () => {
    for (const body of [
      { limit: 1.5, unit: 'tokens', period: 'day' },
      { limit: 0, unit: 'usd', period: 'day' },
      { limit: 1e16, unit: 'tokens', period: 'day' },
      { limit: 5, unit: 'usd', period: 'day', extra: true },
    ]) {
      expect(ZBudget.safeParse(body).success).toBe(false);
    }
  });
});
