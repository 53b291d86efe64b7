// A run's record as its engine keeps it (GET /agent/runs/{id}): read with the user's engine token, so
// the engine answers only for runs the user may see (another caller's run is a 404 there).
import { getFromEngine } from '../playground/engine-token';
import type { GuardrailActionRecord } from './guardrail-actions';

export type RunUsage = {
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
  model_calls?: number;
  model?: string;
};

export type EngineRun = {
  id: string;
  thread_id: string;
  status: 'pending' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'interrupted' | 'input_required';
  source: string;
  error: string | null;
  usage: RunUsage | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** The guardrail rules that fired; absent from an engine older than guardrails. */
  guardrail_actions?: GuardrailActionRecord[];
};

export const isFinal = (status: EngineRun['status']) => status !== 'pending' && status !== 'running';

export function readRunRecord(engineUrl: string, runId: string, token: string): Promise<EngineRun> {
  return getFromEngine<EngineRun>(engineUrl, `/agent/runs/${encodeURIComponent(runId)}`, token);
}
