// The pii detectors find the real identifiers of each entity and leave alone the numbers of the same
// shape that are not: dates, amounts, order ids, invalid check digits.
import { GUARDRAIL_MATCH_MAX_CHARS, PII_ENTITIES, type TPiiEntity } from '@agentplane/contracts';
import { describe, expect, it } from '@jest/globals';
import { piiDetector } from './pii-detectors.js';

function found(entity: TPiiEntity, text: string): string[] {
  const matches: string[] = [];
  piiDetector(entity).find(text, 0, (start, end) => void matches.push(text.slice(start, end)));
  return matches;
}

const FOUND: Record<TPiiEntity, string[]> = {
  email: ['jane.doe@example.com', 'x_y+tag@mail.sub.example.co.uk', 'A1%b@EXAMPLE.ORG'],
  phone: [
    '+1 415 555 2671',
    '+442079460958',
    '+34 612-34-56-78',
    '(555) 123-4567',
    '555-123-4567',
    '020 7946 0958',
    '06 12 34 56 78',
  ],
  payment_card: [
    '4111 1111 1111 1111',
    '4111-1111-1111-1111',
    '5555555555554444',
    '378282246310005',
    '6011111111111117',
  ],
  iban: [
    'DE89 3704 0044 0532 0130 00',
    'GB82WEST12345698765432',
    'ES91 2100 0418 4502 0005 1332',
    'FR1420041010050500013M02606',
  ],
  us_ssn: ['123-45-6789', '078 05 1120'],
  uk_nino: ['AB123456C', 'JG 12 34 56 A'],
  es_dni: ['12345678Z', '12345678-Z', 'X1234567L'],
  api_key: [
    'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv',
    'sk-ant-api03-Xy7Zq2Wv9Ut4Rs1PoNmLkJiHg',
    'AKIAIOSFODNN7EXAMPLE',
    `ghp_${'aB3'.repeat(12)}`,
    'xoxb-1234567890-AbCdEfGhIj',
    `AIza${'Sy1_a-B'.repeat(5)}`,
    'sk_live_4eC39HqLyjWDarjtT1zdp7dc',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  ],
};

const IGNORED: Record<TPiiEntity, string[]> = {
  email: ['not an email: john@', '@handle', 'a@b'],
  phone: ['2024-01-15', '15.01.2024', '12 345 678', 'order 12345678', 'v1.2.3.4', '3.14159', '+123'],
  payment_card: [
    '4111 1111 1111 1112',
    '1234567890123456',
    'order 9780306406157',
    '2024-01-15 10:00',
    '0000 0000 0000 0000',
  ],
  iban: ['DE89 3704 0044 0532 0130 01', 'XX89370400440532013000', 'DE12'],
  us_ssn: ['000-12-3456', '666-12-3456', '912-34-5678', '123-00-4567', '123-45-0000', '123-45-67890'],
  uk_nino: ['GB123456A', 'AB123456E', 'DA123456C'],
  es_dni: ['12345678A', '1234567Z', 'X1234567A'],
  api_key: ['sk-learn-and-more-words-here', 'task-abcdefghijklmnopqrstuvwx', 'AKIA123', 'eyJ.eyJ.sig'],
};

describe('pii detectors', () => {
  for (const entity of PII_ENTITIES) {
    it(`find ${entity}, and only it`, () => {
      for (const value of FOUND[entity]) expect(found(entity, `Here: ${value}. Thanks`)).toEqual([value]);
      for (const value of IGNORED[entity]) expect(found(entity, `Here: ${value}. Thanks`)).toEqual([]);
    });

    it(`bound ${entity}'s window below the longest pattern plus one`, () => {
      expect(piiDetector(entity).windowChars).toBeLessThanOrEqual(GUARDRAIL_MATCH_MAX_CHARS + 1);
    });
  }

  it('take the card number out of a longer run of digits groups, and skip a 20-digit number', () => {
    expect(found('payment_card', 'pay 4111 1111 1111 1111 2024 now')).toEqual(['4111 1111 1111 1111']);
    expect(found('payment_card', 'ref 41111111111111112024')).toEqual([]);
  });

  it('stop an IBAN at its country length', () => {
    expect(found('iban', 'to DE89370400440532013000 NOW')).toEqual(['DE89370400440532013000']);
  });
});
