import type { Response } from 'express';
import { z } from 'zod';

export const ZTotalCountHeader = z.object({
  'X-Total-Count': z.string().meta({ description: 'The number of items in the whole collection' }),
});

/** Lists answer a plain array; the size of the whole collection travels in X-Total-Count. */
export function sendPage<T>(res: Response, page: { items: T[]; total: number }): void {
  res.set('X-Total-Count', String(page.total)).json(page.items);
}
