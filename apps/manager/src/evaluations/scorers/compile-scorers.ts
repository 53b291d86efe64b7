// The scoring library's entry: a list of scorers compiled once (patterns, schemas), then run on as many
// samples as an experiment has, each giving one result per scorer, in order. Every kind but model_judge
// is deterministic and synchronous; a model judge calls out (see model-judge-scorer.ts). A scorer that
// cannot be compiled (a JSON Schema Ajv refuses) is the caller's 422, with the path under `at`.
import { formatIssuePath, type TScorer, type TScorerResult, type TScoringSample } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import type { CompiledScorer } from './grade.js';
import { compileJsonSchema, ScorerSchemaError } from './json-schema-scorer.js';
import { compileLatency, compileTokens } from './limit-scorers.js';
import { compileModelJudge, type JudgeDependencies } from './model-judge-scorer.js';
import { compileContains, compileExactMatch, compileRegex } from './text-scorers.js';
import { compileToolCalled } from './tool-called-scorer.js';

export type ScoringDependencies = { judge: JudgeDependencies };

export function compileScorer(scorer: TScorer, deps: ScoringDependencies): CompiledScorer {
  switch (scorer.kind) {
    case 'exact_match':
      return compileExactMatch(scorer);
    case 'contains':
      return compileContains(scorer);
    case 'regex':
      return compileRegex(scorer);
    case 'json_schema':
      return compileJsonSchema(scorer);
    case 'tool_called':
      return compileToolCalled(scorer);
    case 'latency':
      return compileLatency(scorer);
    case 'tokens':
      return compileTokens(scorer);
    case 'model_judge':
      return compileModelJudge(scorer, deps.judge);
  }
}

export type ScoreSample = (sample: TScoringSample) => Promise<TScorerResult[]>;

/** Compiles every scorer, or throws a 422 naming each one that cannot be (paths under `at`, e.g. ['scorers']). */
export function compileScorers(scorers: readonly TScorer[], deps: ScoringDependencies, at: PropertyKey[]): ScoreSample {
  const errors: { path: string; message: string }[] = [];
  const compiled = scorers.map((scorer, index) => {
    try {
      return compileScorer(scorer, deps);
    } catch (error) {
      if (!(error instanceof ScorerSchemaError)) throw error;
      errors.push({ path: formatIssuePath([...at, index, ...error.path]), message: error.message });
      return undefined;
    }
  });
  if (errors.length > 0) throw new AppError('validation_failed', 'A scorer cannot be used as written.', { errors });
  return async (sample) =>
    Promise.all(
      scorers.map(async (scorer, index) => ({
        name: scorer.name,
        kind: scorer.kind,
        ...(await (compiled[index] as CompiledScorer)(sample)),
      })),
    );
}
