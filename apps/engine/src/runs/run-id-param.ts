// The run id of /agent/runs/{runId}/…: the rule every run id was created under, so an id that breaks
// it names no run, and is answered 400 before it reaches a query or a Last-Event-ID comparison.
import { ZAguiId } from '@agentplane/contracts';
import { z } from 'zod';

export const ZRunParams = z.object({ runId: ZAguiId });

/** What a handler of /agent/runs/{runId}/… is given: the run id, checked. */
export type RunIdInput = { params: z.output<typeof ZRunParams> };
