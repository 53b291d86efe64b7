// An agent's online scoring settings: read (secrets shown or masked by role), and replaced as a whole.
// Scorers are compiled before they are stored, so the worker never meets one it cannot run; a model
// judge's key is sealed with SECRETS_KEY, and a mask sent back keeps the key stored under that name.
import {
  mapScorerSecrets,
  ONLINE_SCORING_SOURCES,
  type TOnlineScoring,
  type TOnlineScoringUpdate,
  type TScorer,
} from '@agentplane/contracts';
import { type Db, isForeignKeyViolation, type Prisma, type SecretBox } from '@agentplane/db';
import { AppError, type EgressAllowList, type Logger } from '@agentplane/server-kit';
import { createManagerEgressPolicy } from '../../egress/manager-egress-policy.js';
import { keepMaskedSecrets } from '../../secrets/keep-masked-secrets.js';
import { type SecretsView, showSecret } from '../../secrets/secrets-view.js';
import { compileScorers } from '../scorers/compile-scorers.js';
import { refuseJudgesAtPrivateAddresses } from '../scorers/scorer-routes.js';

export type OnlineScoringContext = {
  db: Db;
  box: SecretBox;
  logger: Logger;
  egressAllow: EgressAllowList;
  judgeTimeoutMs: number;
  maxQueuedPerAgent: number;
  workspaceId: string;
};

type StoredSettings = {
  enabled: boolean;
  sampleRate: number;
  sources: string[];
  scorers: unknown;
  droppedRuns: bigint;
  lastDroppedAt: Date | null;
  updatedAt: Date;
};

const SETTINGS_FIELDS = {
  enabled: true,
  sampleRate: true,
  sources: true,
  scorers: true,
  droppedRuns: true,
  lastDroppedAt: true,
  updatedAt: true,
} as const;

async function requireAgent(ctx: OnlineScoringContext, agentId: string): Promise<void> {
  const agent = await ctx.db.agent.findFirst({
    where: { id: agentId, workspaceId: ctx.workspaceId },
    select: { id: true },
  });
  if (!agent) throw new AppError('not_found', 'No such agent.');
}

/** The stored scorers with their secrets opened. */
function openScorers(box: SecretBox, stored: unknown): TScorer[] {
  return (stored as TScorer[]).map((scorer) => mapScorerSecrets(scorer, (value) => box.open(value)));
}

async function toResponse(
  ctx: OnlineScoringContext,
  agentId: string,
  row: StoredSettings | null,
  view: SecretsView,
): Promise<TOnlineScoring> {
  const queued = await ctx.db.onlineScoringQueue.count({ where: { agentId } });
  if (row === null) {
    return {
      enabled: false,
      sample_rate: 0,
      scorers: [],
      sources: [...ONLINE_SCORING_SOURCES],
      queued_runs: queued,
      dropped_runs: 0,
      last_dropped_at: null,
      updated_at: null,
    };
  }
  const shown = showSecret(view);
  return {
    enabled: row.enabled,
    sample_rate: row.sampleRate,
    scorers: openScorers(ctx.box, row.scorers).map((scorer) => mapScorerSecrets(scorer, shown)),
    sources: row.sources as TOnlineScoring['sources'],
    queued_runs: queued,
    dropped_runs: Number(row.droppedRuns),
    last_dropped_at: row.lastDroppedAt?.toISOString() ?? null,
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function getOnlineScoring(
  ctx: OnlineScoringContext,
  agentId: string,
  view: SecretsView,
): Promise<TOnlineScoring> {
  await requireAgent(ctx, agentId);
  const row = await ctx.db.onlineScoringSettings.findUnique({ where: { agentId }, select: SETTINGS_FIELDS });
  return toResponse(ctx, agentId, row, view);
}

/** Refuses (422, naming the scorer) what cannot be stored or run: a forged mask, a judge at a refused address, a schema Ajv refuses. */
async function checkScorers(ctx: OnlineScoringContext, sent: readonly TScorer[], stored: readonly TScorer[]) {
  const scorers = sent.map((scorer, index) =>
    keepMaskedSecrets({
      sent: scorer,
      stored: stored.find((candidate) => candidate.name === scorer.name && candidate.kind === scorer.kind),
      mapSecrets: mapScorerSecrets,
      at: ['scorers', index],
    }),
  );
  refuseJudgesAtPrivateAddresses(scorers, ctx.egressAllow);
  const egress = createManagerEgressPolicy(ctx.egressAllow, ctx.logger, 'a model judge');
  try {
    compileScorers(scorers, { judge: { egress, timeoutMs: ctx.judgeTimeoutMs, openSecret: (value) => value } }, [
      'scorers',
    ]);
  } finally {
    await egress.close();
  }
  return scorers;
}

export async function putOnlineScoring(
  ctx: OnlineScoringContext,
  agentId: string,
  body: TOnlineScoringUpdate,
  view: SecretsView,
): Promise<TOnlineScoring> {
  await requireAgent(ctx, agentId);
  const before = await ctx.db.onlineScoringSettings.findUnique({ where: { agentId }, select: { scorers: true } });
  const scorers = await checkScorers(ctx, body.scorers, before === null ? [] : openScorers(ctx.box, before.scorers));
  const sealed = scorers.map((scorer) => mapScorerSecrets(scorer, (value) => ctx.box.seal(value)));
  const columns = {
    enabled: body.enabled,
    sampleRate: body.sample_rate,
    sources: body.sources ?? [...ONLINE_SCORING_SOURCES],
    scorers: sealed as Prisma.InputJsonValue,
    maxQueued: ctx.maxQueuedPerAgent,
  };
  const row = await ctx.db.onlineScoringSettings
    .upsert({
      where: { agentId },
      create: { agentId, workspaceId: ctx.workspaceId, ...columns },
      update: columns,
      select: SETTINGS_FIELDS,
    })
    .catch((error: unknown) => {
      // The agent was deleted since it was found.
      if (isForeignKeyViolation(error)) throw new AppError('not_found', 'No such agent.');
      throw error;
    });
  return toResponse(ctx, agentId, row, view);
}
