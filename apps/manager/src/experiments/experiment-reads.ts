// An experiment's results as the API shows them: a page (filtered by version, item or state), or every
// one in the dataset's order, a page of rows at a time, for an export.
import type {
  TExperimentParams,
  TExperimentResult,
  TExperimentResultState,
  TExperimentResultsQuery,
  TScorerResult,
} from '@agentplane/contracts';
import type { Db, ExperimentResultModel, Prisma } from '@agentplane/db';
import { type ExperimentContext, findExperiment } from './experiment-service.js';

/** Rows read at a time by an export. */
const EXPORT_PAGE = 500;

const ORDER: Prisma.ExperimentResultOrderByWithRelationInput[] = [
  { position: 'asc' },
  { agentVersion: 'asc' },
  { repeat: 'asc' },
];

export function toResult(row: ExperimentResultModel): TExperimentResult {
  return {
    item_id: row.itemId,
    position: row.position,
    agent_version: Number(row.agentVersion),
    repeat: row.repeat,
    run_id: row.runId,
    state: row.state as TExperimentResultState,
    reply: row.reply,
    reply_truncated: row.replyTruncated,
    tool_calls: row.toolCalls as TExperimentResult['tool_calls'],
    latency_ms: row.latencyMs,
    tokens: row.tokens as TExperimentResult['tokens'],
    scores: row.scores as TScorerResult[] | null,
    error: row.error,
    error_code: row.errorCode,
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}

export async function listResults(
  ctx: ExperimentContext,
  params: TExperimentParams,
  query: TExperimentResultsQuery,
): Promise<{ items: TExperimentResult[]; total: number }> {
  const experiment = await findExperiment(ctx.db, ctx.workspaceId, params);
  const where: Prisma.ExperimentResultWhereInput = {
    experimentId: experiment.id,
    ...(query.version === undefined ? {} : { agentVersion: BigInt(query.version) }),
    ...(query.item === undefined ? {} : { itemId: query.item }),
    ...(query.state === undefined ? {} : { state: query.state }),
  };
  const [rows, total] = await Promise.all([
    ctx.db.experimentResult.findMany({ where, orderBy: ORDER, take: query.limit, skip: query.offset }),
    ctx.db.experimentResult.count({ where }),
  ]);
  return { items: rows.map(toResult), total };
}

/** Every result of the experiment in order, a page at a time (by place, not offset). */
export async function* readAllResults(db: Db, experimentId: string): AsyncGenerator<ExperimentResultModel> {
  let after: { position: number; agentVersion: bigint; repeat: number } | undefined;
  for (;;) {
    const rows = await db.experimentResult.findMany({
      where: {
        experimentId,
        ...(after === undefined
          ? {}
          : {
              OR: [
                { position: { gt: after.position } },
                { position: after.position, agentVersion: { gt: after.agentVersion } },
                { position: after.position, agentVersion: after.agentVersion, repeat: { gt: after.repeat } },
              ],
            }),
      },
      orderBy: ORDER,
      take: EXPORT_PAGE,
    });
    yield* rows;
    if (rows.length < EXPORT_PAGE) return;
    after = rows[rows.length - 1];
  }
}
