// Recording an experiment's runs that ended: what each answered (run-observation.ts), graded by the
// experiment's scorers when it succeeded, written to its result once. Grading calls model judges, so it
// happens outside any transaction; the write only lands on a result still `queued`, so a result is never
// graded over, even by a replica that lost its lease meanwhile.
import {
  EXPERIMENT_REPLY_MAX_LENGTH,
  SAMPLE_TEXT_MAX_LENGTH,
  type TDatasetMessage,
  type TExperimentResultState,
  type TScorer,
  type TScorerResult,
  type TScoringExpected,
  type TScoringObservation,
  type TScoringSample,
} from '@agentplane/contracts';
import type { Db } from '@agentplane/db';
import { observeRun, readRunError } from '../evaluations/run-observation.js';
import { type EndedRun, readRunEvents } from './experiment-runs.js';
import type { ExperimentGrader } from './experiment-scoring.js';

export type RecordedOutcome = {
  state: Extract<TExperimentResultState, 'scored' | 'failed' | 'cancelled'>;
  observation: TScoringObservation | null;
  scores: TScorerResult[] | null;
  error: string | null;
  errorCode: string | null;
};

const ERROR_MAX_LENGTH = 2_000;

const STOPPED: Record<string, string> = {
  interrupted: 'The run was interrupted',
  input_required: 'The run stopped to ask for input, which an experiment cannot give',
};

function toScoringInput(messages: TDatasetMessage[] | null): TScoringSample['input'] {
  return (messages ?? []).map((message) => ({
    role: message.role === 'developer' ? 'system' : message.role,
    content: (message.content ?? '').slice(0, SAMPLE_TEXT_MAX_LENGTH),
  }));
}

function toExpected(expected: unknown): TScoringExpected {
  if (typeof expected !== 'object' || expected === null) return {};
  const { reply, tool_calls: toolCalls } = expected as TScoringExpected;
  return { ...(reply === undefined ? {} : { reply }), ...(toolCalls === undefined ? {} : { tool_calls: toolCalls }) };
}

async function grade(
  grader: ExperimentGrader,
  scorers: readonly TScorer[],
  sample: TScoringSample,
): Promise<TScorerResult[]> {
  try {
    return await grader.score(sample);
  } catch (error) {
    // A scorer that throws (none should) grades nothing rather than stopping the experiment on this run.
    const reason = `The scorer failed: ${(error as Error).message}`.slice(0, ERROR_MAX_LENGTH);
    return scorers.map((scorer) => ({ name: scorer.name, kind: scorer.kind, score: null, reason }));
  }
}

/** What to record of one ended run (reads its events and grades it; writes nothing). */
export async function observeEndedRun(
  db: Db,
  run: EndedRun,
  options: { agentId: string; scorers: readonly TScorer[]; grader: ExperimentGrader },
): Promise<RecordedOutcome> {
  if (run.status === null) {
    return { state: 'failed', observation: null, scores: null, error: 'The run’s record is gone', errorCode: null };
  }
  if (run.status === 'cancelled') {
    return { state: 'cancelled', observation: null, scores: null, error: run.error, errorCode: run.error_code };
  }
  const events = await readRunEvents(db, options.agentId, run.run_id);
  const observation = observeRun({
    events,
    usage: run.usage,
    startedAt: run.started_at,
    finishedAt: run.finished_at,
  });
  if (run.status !== 'succeeded') {
    const ended = readRunError(events);
    const error = run.error ?? ended?.message ?? STOPPED[run.status] ?? `The run ended ${run.status}`;
    return { state: 'failed', observation, scores: null, error, errorCode: run.error_code ?? ended?.code ?? null };
  }
  const sample: TScoringSample = {
    input: toScoringInput(run.input),
    observation: { ...observation, reply: observation.reply?.slice(0, SAMPLE_TEXT_MAX_LENGTH) ?? null },
    expected: toExpected(run.expected),
  };
  const scores = await grade(options.grader, options.scorers, sample);
  return { state: 'scored', observation, scores, error: null, errorCode: null };
}

/** Writes the outcome to the result if it is still `queued`; false when something else recorded it first. */
export async function writeOutcome(
  db: Db,
  experimentId: string,
  run: EndedRun,
  outcome: RecordedOutcome,
): Promise<boolean> {
  const reply = outcome.observation?.reply ?? null;
  const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));
  const written = await db.$executeRaw`
    UPDATE experiment_results
    SET state = ${outcome.state}, reply = ${reply?.slice(0, EXPERIMENT_REPLY_MAX_LENGTH) ?? null},
        reply_truncated = ${reply !== null && reply.length > EXPERIMENT_REPLY_MAX_LENGTH},
        tool_calls = ${json(outcome.observation?.tool_calls)}::jsonb,
        latency_ms = ${outcome.observation?.latency_ms ?? null}::int,
        tokens = ${json(outcome.observation?.tokens)}::jsonb,
        scores = ${json(outcome.scores)}::jsonb,
        error = ${outcome.error?.slice(0, ERROR_MAX_LENGTH) ?? null}, error_code = ${outcome.errorCode},
        finished_at = COALESCE(${run.finished_at}::timestamptz, now()), updated_at = now()
    WHERE experiment_id = ${experimentId}::uuid AND item_id = ${run.item_id}::uuid
      AND agent_version = ${run.agent_version} AND repeat = ${run.repeat} AND state = 'queued'`;
  return written === 1;
}
