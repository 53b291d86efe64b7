// The checks that tell a real identifier from a number of the same shape: check digits, check letters
// and the ranges an issuer never hands out. They keep the pii rule's false positives low.

/** Whether a string of digits passes the Luhn check, as every payment card number does. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let index = digits.length - 1; index >= 0; index--) {
    let digit = digits.charCodeAt(index) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

/**
 * Whether a card number's first digits belong to a card network (Visa, Mastercard, American Express,
 * Discover, JCB, Diners, UnionPay, Maestro): an order id that happens to pass Luhn mostly does not.
 */
export function hasCardIssuerPrefix(digits: string): boolean {
  const two = Number(digits.slice(0, 2));
  const four = Number(digits.slice(0, 4));
  if (digits[0] === '4') return true;
  if (two >= 51 && two <= 55) return true;
  if (four >= 2221 && four <= 2720) return true;
  if (two === 34 || two === 37 || two === 36 || two === 38 || (two === 30 && Number(digits[2]) <= 5)) return true;
  if (digits[0] === '6') return true;
  if (four >= 3528 && four <= 3589) return true;
  return two === 50 || (two >= 56 && two <= 58);
}

/** A US social security number's parts, without the numbers never issued (area 000, 666, 900-999; group 00; serial 0000). */
export function isIssuableSsn(area: string, group: string, serial: string): boolean {
  const areaNumber = Number(area);
  return areaNumber !== 0 && areaNumber !== 666 && areaNumber < 900 && group !== '00' && serial !== '0000';
}

const NINO_UNUSED_PREFIXES = new Set(['BG', 'GB', 'KN', 'NK', 'NT', 'TN', 'ZZ']);

/** Whether a UK national insurance number's two letters are a prefix HMRC allocates. */
export function isAllocatedNinoPrefix(prefix: string): boolean {
  return !NINO_UNUSED_PREFIXES.has(prefix.toUpperCase());
}

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';
const NIE_PREFIX_DIGITS: Record<string, string> = { X: '0', Y: '1', Z: '2' };

/** Whether a Spanish DNI (8 digits) or NIE (X, Y or Z and 7 digits) has its check letter. */
export function hasDniCheckLetter(identifier: string): boolean {
  const upper = identifier.toUpperCase().replace('-', '');
  const number = (NIE_PREFIX_DIGITS[upper[0] ?? ''] ?? upper[0]) + upper.slice(1, -1);
  return DNI_LETTERS[Number(number) % 23] === upper.at(-1);
}

/** How many ASCII digits `text` has between `start` and `end`. */
export function countDigits(text: string, start: number, end: number): number {
  let count = 0;
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    if (code >= 48 && code <= 57) count++;
  }
  return count;
}
