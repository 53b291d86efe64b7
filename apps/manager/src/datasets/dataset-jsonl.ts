// JSON Lines in and out of a dataset. An import is all or nothing: every line is checked before any is
// stored, and each refusal names its line (1-based, as editors count). An export streams a version's
// items a page at a time, waiting for the client to take each write, and stops when it goes away.

import { once } from 'node:events';
import {
  DATASET_ITEM_MAX_BYTES,
  findJsonProblem,
  formatIssuePath,
  formatZodIssues,
  JSON_MAX_DEPTH,
  JSONL_MEDIA_TYPE,
  JSONL_MEDIA_TYPES,
  type TDatasetItemInput,
  type TProblemFieldError,
  ZDatasetItemInput,
} from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import express, { type Request, type Response } from 'express';

/** Refusals listed in one answer; a file wrong on every line needs no more to be fixed. */
const MAX_ERRORS = 20;

function lineErrors(lineNumber: number, errors: TProblemFieldError[]): TProblemFieldError[] {
  return errors.map(({ path, message }) => ({
    path: path === '' ? `line ${lineNumber}` : `line ${lineNumber}: ${path}`,
    message,
  }));
}

function parseLine(text: string, lineNumber: number): TDatasetItemInput | TProblemFieldError[] {
  // A line longer than any item can be written (\uXXXX escapes take six characters for one byte) is
  // refused without parsing it.
  if (text.length > DATASET_ITEM_MAX_BYTES * 6) {
    return lineErrors(lineNumber, [
      { path: '', message: `The line is longer than an item may be (${DATASET_ITEM_MAX_BYTES} bytes)` },
    ]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return lineErrors(lineNumber, [{ path: '', message: 'The line is not valid JSON' }]);
  }
  const problem = findJsonProblem(value, { maxDepth: JSON_MAX_DEPTH });
  if (problem !== undefined) {
    return lineErrors(lineNumber, [{ path: formatIssuePath(problem.path), message: problem.message }]);
  }
  const parsed = ZDatasetItemInput.safeParse(value);
  return parsed.success ? parsed.data : lineErrors(lineNumber, formatZodIssues(parsed.error));
}

/** The items of a JSONL text, blank lines skipped; a 422 naming the lines that are not items. */
export function parseJsonlItems(text: string): TDatasetItemInput[] {
  const items: TDatasetItemInput[] = [];
  const errors: TProblemFieldError[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '' || errors.length >= MAX_ERRORS) return;
    const result = parseLine(line, index + 1);
    if (Array.isArray(result)) errors.push(...result);
    else items.push(result);
  });
  if (errors.length > 0) {
    throw new AppError('validation_failed', 'The file holds lines that are not dataset items; nothing was imported.', {
      errors: errors.slice(0, MAX_ERRORS),
    });
  }
  if (items.length === 0) {
    throw new AppError('validation_failed', 'The file holds no items; nothing was imported.');
  }
  return items;
}

/**
 * The request's JSONL body as text, read only now (after the access checks) and only up to `maxBytes`
 * (413 past it). Any other media type is a 415: the app's JSON parser has read, or refused, those.
 */
export async function readJsonlBody(req: Request, res: Response, maxBytes: number): Promise<string> {
  if (!req.is(JSONL_MEDIA_TYPES)) {
    throw new AppError('unsupported_media_type', `An import's body must be JSON Lines (${JSONL_MEDIA_TYPE}).`);
  }
  const readText = express.text({ type: JSONL_MEDIA_TYPES, limit: maxBytes });
  await new Promise<void>((resolve, reject) => {
    readText(req, res, (error?: unknown) => (error === undefined ? resolve() : reject(error)));
  });
  return typeof req.body === 'string' ? req.body : '';
}

/** Waits for `res` to drain or close, leaving no listener behind for the event that did not come. */
export async function drainedOrClosed(res: Response): Promise<void> {
  const settled = new AbortController();
  try {
    await Promise.race([
      once(res, 'drain', { signal: settled.signal }),
      once(res, 'close', { signal: settled.signal }),
    ]);
  } finally {
    // Removes the loser's listener; its rejection is the race's, already settled, so it goes unheard.
    settled.abort();
  }
}

/** Streams `lines` as JSONL; stops reading them as soon as the client has gone. */
export async function sendJsonl(res: Response, filename: string, lines: AsyncIterable<unknown>): Promise<void> {
  res.status(200);
  res.set({
    'Content-Type': `${JSONL_MEDIA_TYPE}; charset=utf-8`,
    'Content-Disposition': `attachment; filename="${filename}"`,
  });
  for await (const line of lines) {
    if (res.destroyed) return;
    if (!res.write(`${JSON.stringify(line)}\n`)) await drainedOrClosed(res);
  }
  res.end();
}
