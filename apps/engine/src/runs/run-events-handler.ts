// GET /agent/runs/{runId}/events: a run's stored events as JSON, a page at a time, each with the time the
// engine stored it. The stream (GET …/stream) replays the same events as SSE, without times; a run view
// reads this one to tell how long each model call and tool call took. The caller's own runs only, as
// every run read: another caller's run is a 404.
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { RunStore } from './recorded-run.js';
import { findOwnRun, requireEventLog } from './rejoin-handler.js';
import { REPLAY_PAGE } from './run-follow-reads.js';
import type { RunIdInput } from './run-id-param.js';

export const ZRunEventsQuery = z.strictObject({
  after: z
    .string()
    .regex(/^\d{1,9}$/, 'A seq: digits only')
    .transform(Number)
    .optional(),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, 'A number of events: digits only')
    .transform(Number)
    .refine((limit) => limit >= 1 && limit <= REPLAY_PAGE, `From 1 to ${REPLAY_PAGE}`)
    .optional(),
});

export const ZRunEventsPage = z
  .object({
    status: z.enum(['pending', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted']),
    events: z.array(
      z.object({
        seq: z.number().int(),
        stored_at: z.iso.datetime(),
        event: z.record(z.string(), z.unknown()).meta({ description: 'The AG-UI event, as the stream sent it' }),
      }),
    ),
    next_after: z.number().int().nullable().meta({
      description: 'Where the next page starts; null once this page held the last event stored so far',
    }),
  })
  .meta({ id: 'RunEventsPage' });

const PAGE = {
  name: 'read-run-events-page',
  text: `SELECT seq, data, created_at FROM run_events
    WHERE agent_id = $1 AND run_id = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
};

type Row = { seq: number; data: string; created_at: Date };

type RunEventsInput = RunIdInput & { query: z.output<typeof ZRunEventsQuery> };

export function handleRunEvents(store: RunStore) {
  return async ({ params: { runId }, query }: RunEventsInput, _req: Request, res: Response): Promise<void> => {
    requireEventLog(store, "A run's events cannot be read");
    const { after = 0, limit = REPLAY_PAGE } = query;
    const run = await findOwnRun(store, runId, res);
    const { rows } = await store.pool.query<Row>({ ...PAGE, values: [store.agentId, runId, after, limit] });
    // Each stored as the JSON the stream sent.
    const events = rows.map((row) => ({
      seq: row.seq,
      stored_at: row.created_at.toISOString(),
      event: JSON.parse(row.data) as unknown,
    }));
    res.json({
      status: run.status,
      events,
      // Where the next page starts; null once this page held the last event stored so far (a run still
      // going stores more: its reader asks again after the last seq it has).
      next_after: rows.length === limit ? (rows.at(-1)?.seq ?? null) : null,
    });
  };
}
