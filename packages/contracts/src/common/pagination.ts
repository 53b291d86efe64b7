// List query parameters. They arrive as URL strings, so the digits are checked before converting:
// z.coerce.number() alone would turn "" into 0 and accept "1e3" or " 5".
import { z } from 'zod';

export const PAGINATION_LIMIT_DEFAULT = 100;
export const PAGINATION_LIMIT_MAX = 1000;
export const PAGINATION_OFFSET_DEFAULT = 0;

const DIGITS_ONLY = /^\d+$/;

function makeIntegerQueryParam(min: number, max: number) {
  return (
    z
      .string()
      .regex(DIGITS_ONLY, { error: 'Must be a whole number written in digits' })
      .transform((digits) => Number(digits))
      // Digits only already means a whole number; max (at most MAX_SAFE_INTEGER) catches lost precision.
      .pipe(z.number().min(min).max(max))
  );
}

// Not strict: other query parameters (cache busters, future filters) must not break listing.
export const ZPaginationQuery = z.object({
  limit: makeIntegerQueryParam(1, PAGINATION_LIMIT_MAX).default(PAGINATION_LIMIT_DEFAULT),
  offset: makeIntegerQueryParam(0, Number.MAX_SAFE_INTEGER).default(PAGINATION_OFFSET_DEFAULT),
});
export type TPaginationQuery = z.infer<typeof ZPaginationQuery>;
