import { describe, expect, it } from '@jest/globals';
import { ZIsoDateTime, ZNonBlankString, ZResourceName, ZUuid } from './primitives.js';

describe('ZUuid', () => {
  it('accepts a UUID and rejects other strings', () => {
    expect(ZUuid.safeParse('0b3c5a9e-2f4d-4c1b-9a7e-3d2f1e0c9b8a').success).toBe(true);
    expect(ZUuid.safeParse('not-a-uuid').success).toBe(false);
    expect(ZUuid.safeParse('0b3c5a9e2f4d4c1b9a7e3d2f1e0c9b8a').success).toBe(false);
  });
});

describe('ZResourceName', () => {
  it('trims surrounding whitespace', () => {
    expect(ZResourceName.parse('  support line  ')).toBe('support line');
  });

  it('rejects empty and blank names', () => {
    expect(ZResourceName.safeParse('').success).toBe(false);
    expect(ZResourceName.safeParse('   ').success).toBe(false);
  });

  it('accepts 200 characters and rejects 201', () => {
    expect(ZResourceName.safeParse('a'.repeat(200)).success).toBe(true);
    expect(ZResourceName.safeParse('a'.repeat(201)).success).toBe(false);
  });
});

describe('ZNonBlankString', () => {
  it('keeps the value byte for byte', () => {
    expect(ZNonBlankString.parse(' tok ')).toBe(' tok ');
  });

  it('rejects empty and all-whitespace values', () => {
    expect(ZNonBlankString.safeParse('').success).toBe(false);
    expect(ZNonBlankString.safeParse(' \t\n').success).toBe(false);
  });
});

describe('ZIsoDateTime', () => {
  it('accepts toISOString output and an explicit offset', () => {
    expect(ZIsoDateTime.safeParse(new Date(0).toISOString()).success).toBe(true);
    expect(ZIsoDateTime.safeParse('2025-01-02T03:04:05+02:00').success).toBe(true);
  });

  it('rejects dates without a time and non-ISO formats', () => {
    expect(ZIsoDateTime.safeParse('2025-01-02').success).toBe(false);
    expect(ZIsoDateTime.safeParse('Thu, 01 Jan 1970 00:00:00 GMT').success).toBe(false);
    expect(ZIsoDateTime.safeParse('2025-01-02T03:04:05').success).toBe(false);
  });
});
