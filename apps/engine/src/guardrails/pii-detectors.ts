// The pii rule's detectors, ours: a bounded regular expression finds a candidate of each entity's
// shape, and a check (pii-checks.ts, ibantools for IBANs) keeps only the real ones. Every expression
// bounds its repetitions, so each has a longest match: the streamed output's hold-back for the rule.
import { regexMatchBounds, type TPiiEntity } from '@agentplane/contracts';
import { electronicFormatIBAN, getCountrySpecifications, isValidIBAN } from 'ibantools';
import {
  countDigits,
  hasCardIssuerPrefix,
  hasDniCheckLetter,
  isAllocatedNinoPrefix,
  isIssuableSsn,
  passesLuhn,
} from './pii-checks.js';
import { regExpDetector, type TextDetector } from './text-detector.js';

/** Each entity's candidate expression; its longest match (regexMatchBounds) bounds the hold-back. */
const PII_EXPRESSIONS: Record<TPiiEntity, { source: string; flags: string }> = {
  // Local part of at most 64 characters, at most four labels of at most 63 before the top-level domain.
  email: {
    source: String.raw`(?<![\w.%+\-])[\w.%+\-]{1,64}@(?:[A-Za-z0-9\-]{1,63}\.){1,4}[A-Za-z]{2,24}(?![A-Za-z0-9\-])`,
    flags: '',
  },
  // International (`+` and 7 to 15 digits), or grouped national forms whose last group has four digits
  // (555-123-4567, (020) 7946 0958) or that go in pairs (06 12 34 56 78): not a date, an amount or an id.
  phone: {
    source: [
      String.raw`(?<![\w+])\+\d(?:[ .()\-]{0,2}\d){6,14}(?![ .\-]?\d)`,
      String.raw`(?<![\w+]|\d[ .\-])(?:\(\d{2,4}\)[ .\-]?|\d{2,4}[ .\-])\d{3,4}[ .\-]\d{4}(?![ .\-]?\d)`,
      String.raw`(?<![\w+]|\d[ .\-])\d{2,3}(?:[ .]\d{2}){3,4}(?![ .\-]?\d)`,
    ].join('|'),
    flags: '',
  },
  // 13 to 19 digits, single spaces or dashes between them.
  payment_card: { source: String.raw`(?<!\d)\d(?:[ \-]?\d){12,18}`, flags: '' },
  iban: { source: String.raw`(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?:[ \-]?[A-Za-z0-9]){10,30}`, flags: '' },
  us_ssn: {
    source: String.raw`(?<!\d[ \-]?)\d{3}-\d{2}-\d{4}(?![ \-]?\d)|(?<!\d[ \-]?)\d{3} \d{2} \d{4}(?![ \-]?\d)`,
    flags: '',
  },
  uk_nino: {
    source: String.raw`(?<![A-Za-z0-9])[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])`,
    flags: '',
  },
  es_dni: { source: String.raw`(?<![A-Za-z0-9])(?:\d{8}|[XYZxyz]\d{7})-?[A-Za-z](?![A-Za-z0-9])`, flags: '' },
  // A key longer than its bound is matched for its first characters: redacting those makes it useless.
  api_key: {
    source: [
      String.raw`sk-[A-Za-z0-9_\-]{20,200}`,
      String.raw`(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,200}`,
      String.raw`(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])`,
      String.raw`gh[pousr]_[A-Za-z0-9]{36,100}`,
      String.raw`github_pat_[A-Za-z0-9_]{22,100}`,
      String.raw`xox[abpr]-[A-Za-z0-9\-]{10,200}`,
      String.raw`AIza[0-9A-Za-z_\-]{35}`,
      String.raw`eyJ[A-Za-z0-9_\-]{5,100}\.eyJ[A-Za-z0-9_\-]{5,150}\.[A-Za-z0-9_\-]{10,43}`,
    ]
      .map((source) => `(?<![A-Za-z0-9_\\-])(?:${source})`)
      .join('|'),
    flags: '',
  },
};

/** One character of look-ahead past the longest match (text-detector.ts). */
const LOOK_AHEAD_CHARS = 1;

const isSeparator = (code: number) => code === 32 || code === 45;
const isDigit = (code: number) => code >= 48 && code <= 57;

/** The longest run of a card candidate's digits, cut at a separator or its end, that is a card number. */
function acceptCard(text: string, start: number, end: number): number {
  let digits = '';
  const ends: number[] = [];
  for (let index = start; index < end; index++) {
    if (!isDigit(text.charCodeAt(index))) continue;
    digits += text[index];
    ends.push(index + 1);
  }
  for (let count = digits.length; count >= 13; count--) {
    const cut = ends[count - 1] as number;
    const atBoundary = cut === end ? !isDigit(text.charCodeAt(end)) : isSeparator(text.charCodeAt(cut));
    if (!atBoundary) continue;
    const number = digits.slice(0, count);
    if (hasCardIssuerPrefix(number) && passesLuhn(number)) return cut;
  }
  return -1;
}

const isAlphanumeric = (code: number) => isDigit(code) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);

const ibanLengths = new Map(
  Object.entries(getCountrySpecifications()).flatMap(([country, spec]) =>
    spec.chars === null ? [] : [[country, spec.chars] as const],
  ),
);

/** The IBAN a candidate starts with: as many characters as its country's IBANs have, mod-97 checked. */
function acceptIban(text: string, start: number, end: number): number {
  const length = ibanLengths.get(text.slice(start, start + 2));
  if (length === undefined) return -1;
  let count = 0;
  let index = start;
  while (index < end && count < length) {
    if (isAlphanumeric(text.charCodeAt(index))) count++;
    index++;
  }
  if (count < length || isAlphanumeric(text.charCodeAt(index))) return -1;
  const electronic = electronicFormatIBAN(text.slice(start, index).replaceAll('-', ''));
  return electronic !== null && isValidIBAN(electronic) ? index : -1;
}

function acceptPhone(text: string, start: number, end: number): number {
  const digits = countDigits(text, start, end);
  return digits >= 7 && digits <= 15 ? end : -1;
}

function acceptSsn(text: string, start: number, end: number): number {
  const digits = text.slice(start, end);
  return isIssuableSsn(digits.slice(0, 3), digits.slice(4, 6), digits.slice(7, 11)) ? end : -1;
}

const acceptNino = (text: string, start: number, end: number) =>
  isAllocatedNinoPrefix(text.slice(start, start + 2)) ? end : -1;

const acceptDni = (text: string, start: number, end: number) => (hasDniCheckLetter(text.slice(start, end)) ? end : -1);

const RANDOM_KEY_PREFIXES = ['sk-', 'sk_', 'rk_', 'xox'];

/**
 * Keys drawn at random from letters and digits have all three kinds in twenty characters; a word with
 * the same prefix (`sk-learn-and-more-words`) does not.
 */
function acceptApiKey(text: string, start: number, end: number): number {
  if (!RANDOM_KEY_PREFIXES.some((prefix) => text.startsWith(prefix, start))) return end;
  let kinds = 0;
  for (let index = start + 3; index < end && kinds !== 7; index++) {
    const code = text.charCodeAt(index);
    if (isDigit(code)) kinds |= 1;
    else if (code >= 65 && code <= 90) kinds |= 2;
    else if (code >= 97 && code <= 122) kinds |= 4;
  }
  return kinds === 7 ? end : -1;
}

const ACCEPT: Partial<Record<TPiiEntity, (text: string, start: number, end: number) => number>> = {
  phone: acceptPhone,
  payment_card: acceptCard,
  iban: acceptIban,
  us_ssn: acceptSsn,
  uk_nino: acceptNino,
  es_dni: acceptDni,
  api_key: acceptApiKey,
};

/** The detector of one entity; its matches are found as the entity's name. */
export function piiDetector(entity: TPiiEntity): TextDetector {
  const { source, flags } = PII_EXPRESSIONS[entity];
  return regExpDetector(source, flags, entity, regexMatchBounds(source).max + LOOK_AHEAD_CHARS, ACCEPT[entity]);
}
