// The run id of /agent/runs/{runId}/…: the rule every run id was created under, so an id that breaks
// it names no run, and is answered 400 before it reaches a query or a Last-Event-ID comparison.
import { ZAguiId } from '@agentplane/contracts';
import type { Request } from 'express';
import { z } from 'zod';
import { parseRequestPart } from '../http/parse-request-part.js';

const ZRunParams = z.object({ runId: ZAguiId });

export function readRunIdParam(req: Request): string {
  return parseRequestPart(ZRunParams, req.params, 'path').runId;
}
