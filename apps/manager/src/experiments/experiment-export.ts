// An experiment's results exported as JSON Lines (one ExperimentResult per line) or CSV: RFC 4180, a
// header row, one column per scorer. A spreadsheet runs a cell that starts with = + - @ (or a tab or
// carriage return) as a formula, so every text cell that does is written with a leading apostrophe: a
// reply is the model's, an item or a scorer name the tenant's, and none of them may run in a reader's sheet.
import type { TExperimentParams, TExperimentResult, TScorer } from '@agentplane/contracts';
import type { Response } from 'express';
import { drainedOrClosed, sendJsonl } from '../datasets/dataset-jsonl.js';
import { readAllResults, toResult } from './experiment-reads.js';
import { type ExperimentContext, findExperiment, storedScorers } from './experiment-service.js';

const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV cell: text made inert as a formula, then quoted when it holds a comma, a quote or a line break. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return String(value);
  const inert = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(inert) ? `"${inert.replaceAll('"', '""')}"` : inert;
}

const FIXED_COLUMNS = [
  'item_id',
  'position',
  'agent_version',
  'repeat',
  'state',
  'run_id',
  'reply',
  'reply_truncated',
  'tool_calls',
  'latency_ms',
  'input_tokens',
  'output_tokens',
  'total_tokens',
  'error',
  'error_code',
] as const;

export function csvHeader(scorers: readonly TScorer[]): string {
  return [...FIXED_COLUMNS, ...scorers.map((scorer) => `score:${scorer.name}`)].map(csvCell).join(',');
}

/** A result's row; a score column is empty when the run was not graded or its scorer gave null. */
export function csvRow(result: TExperimentResult, scorers: readonly TScorer[]): string {
  const cells = [
    result.item_id,
    result.position,
    result.agent_version,
    result.repeat,
    result.state,
    result.run_id,
    result.reply,
    result.reply_truncated,
    result.tool_calls === null ? null : JSON.stringify(result.tool_calls),
    result.latency_ms,
    result.tokens?.input,
    result.tokens?.output,
    result.tokens?.total,
    result.error,
    result.error_code,
    ...scorers.map((_, index) => result.scores?.[index]?.score),
  ];
  return cells.map(csvCell).join(',');
}

async function* csvLines(ctx: ExperimentContext, experimentId: string, scorers: readonly TScorer[]) {
  yield `${csvHeader(scorers)}\r\n`;
  for await (const row of readAllResults(ctx.db, experimentId)) yield `${csvRow(toResult(row), scorers)}\r\n`;
}

async function sendCsv(res: Response, filename: string, lines: AsyncIterable<string>): Promise<void> {
  res.status(200);
  res.set({ 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${filename}"` });
  for await (const line of lines) {
    if (res.destroyed) return;
    if (!res.write(line)) await drainedOrClosed(res);
  }
  res.end();
}

export async function sendExport(
  ctx: ExperimentContext,
  params: TExperimentParams,
  format: 'jsonl' | 'csv',
  res: Response,
): Promise<void> {
  const experiment = await findExperiment(ctx.db, ctx.workspaceId, params);
  const filename = `experiment-${experiment.id}.${format}`;
  if (format === 'csv') {
    await sendCsv(res, filename, csvLines(ctx, experiment.id, storedScorers(experiment)));
    return;
  }
  const lines = (async function* () {
    for await (const row of readAllResults(ctx.db, experiment.id)) yield toResult(row);
  })();
  await sendJsonl(res, filename, lines);
}
