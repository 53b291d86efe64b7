import { describe, expect, it } from '@jest/globals';
import { ZIsoDateTime, ZNonBlankString, ZResourceName, ZUrlText, ZUuid } from './primitives.js';

describe('ZUuid', () => {
  it('accepts a UUID and rejects other strings', () => {
    expect(ZUuid.safeParse('0b3c5a9e-2f4d-4c1b-9a7e-3d2f1e0c9b8a').success).toBe(true);
    expect(ZUuid.safeParse('not-a-uuid').success).toBe(false);
    expect(ZUuid.safeParse('0b3c5a9e2f4d4c1b9a7e3d2f1e0c9b8a').success).toBe(false);
  });

  it('lower-cases an upper-case UUID, so that it names the same row', () => {
    expect(ZUuid.parse('0B3C5A9E-2F4D-4C1B-9A7E-3D2F1E0C9B8A')).toBe('0b3c5a9e-2f4d-4c1b-9a7e-3d2f1e0c9b8a');
  });
});

describe('ZUrlText', () => {
  it('accepts an ordinary URL, percent-encoded text included', () => {
    expect(ZUrlText.safeParse('https://mcp.example.com/a%20b?q=%E2%80%AE').success).toBe(true);
  });

  it.each([
    ['a right-to-left override', 'https://example.com/\u202Egpj.exe'],
    ['a left-to-right isolate', 'https://example.com/\u2066x'],
    ['a zero-width space', 'https://exa\u200Bmple.com/'],
    ['a C0 control', 'https://example.com/\u0007'],
    ['a C1 control', 'https://example.com/\u0085'],
    ['a space', 'https://example.com/a b'],
    ['a lone surrogate', 'https://example.com/\ud800'],
  ])('refuses %s', (_what, url) => {
    expect(ZUrlText.safeParse(url).success).toBe(false);
  });

  it('caps the length', () => {
    expect(ZUrlText.safeParse(`https://example.com/${'a'.repeat(2048)}`).success).toBe(false);
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
