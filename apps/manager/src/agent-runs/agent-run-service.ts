// An agent's recent runs for the workspace's members, read from the engine's agent_runs table. What
// is selected is the whole answer: a run's input, its events and its thread's messages stay with the
// engine, whatever the member's role (see docs/pages/concepts/agents.md, "Runs"). A run's online scores
// come with it: their reasons are the scorers' words (a model judge's may quote the reply it graded).
import { hasRoleAtLeast, type TAgentRun, type TAgentRunListQuery, type TRole } from '@agentplane/contracts';
import type { Db } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';

export type AgentRunsContext = { db: Db; workspaceId: string; role: TRole };

const RUN_FIELDS = {
  id: true,
  threadId: true,
  source: true,
  status: true,
  createdAt: true,
  startedAt: true,
  finishedAt: true,
  error: true,
  usage: true,
  issuer: true,
  subject: true,
  callerAgentId: true,
  callerRunId: true,
  guardrailActions: true,
  agentVersion: true,
  // The online scorers' grades (evaluations/online): at most one per scorer of a list.
  scores: { select: { scorerName: true, kind: true, score: true, reason: true }, orderBy: { scorerName: 'asc' } },
} as const;

type RunRow = {
  id: string;
  threadId: string;
  source: TAgentRun['source'];
  status: TAgentRun['status'];
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  error: string | null;
  usage: unknown;
  issuer: string | null;
  subject: string | null;
  callerAgentId: string | null;
  callerRunId: string | null;
  guardrailActions: unknown;
  agentVersion: bigint | null;
  scores: { scorerName: string; kind: string; score: number | null; reason: string }[];
};

// Who asked the agent is an end user's identity: admins and owners, who manage the workspace's
// people and its SSO, see it; members and viewers see what happened, not to whom.
const SEES_CALLERS: TRole = 'admin';

function toAgentRun(row: RunRow, withCaller: boolean): TAgentRun {
  const duration =
    row.startedAt === null || row.finishedAt === null ? null : row.finishedAt.getTime() - row.startedAt.getTime();
  return {
    id: row.id,
    thread_id: row.threadId,
    source: row.source,
    status: row.status,
    created_at: row.createdAt.toISOString(),
    started_at: row.startedAt?.toISOString() ?? null,
    finished_at: row.finishedAt?.toISOString() ?? null,
    duration_ms: duration === null ? null : Math.max(0, duration),
    error: row.error,
    usage: (row.usage ?? null) as TAgentRun['usage'],
    // Agents of the workspace, not people: every role sees which agent called.
    caller_agent_id: row.callerAgentId,
    caller_run_id: row.callerRunId,
    agent_version: row.agentVersion === null ? null : Number(row.agentVersion),
    guardrail_actions: Array.isArray(row.guardrailActions)
      ? (row.guardrailActions as TAgentRun['guardrail_actions'])
      : [],
    scores: row.scores.map(({ scorerName, kind, score, reason }) => ({
      name: scorerName,
      kind: kind as TAgentRun['scores'][number]['kind'],
      score,
      reason,
    })),
    ...(withCaller ? { issuer: row.issuer, subject: row.subject } : {}),
  };
}

/** A page of the agent's runs, newest first; 404 for an agent not in the workspace. */
export async function listAgentRuns(
  ctx: AgentRunsContext,
  agentId: string,
  query: TAgentRunListQuery,
): Promise<{ items: TAgentRun[]; total: number }> {
  const agent = await ctx.db.agent.findFirst({
    where: { id: agentId, workspaceId: ctx.workspaceId },
    select: { id: true },
  });
  if (!agent) throw new AppError('not_found', 'No such agent.');
  const where = { agentId, ...(query.status === undefined ? {} : { status: query.status }) };
  const [rows, total] = await Promise.all([
    ctx.db.agentRun.findMany({
      where,
      select: RUN_FIELDS,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: query.offset,
      take: query.limit,
    }),
    ctx.db.agentRun.count({ where }),
  ]);
  const withCaller = hasRoleAtLeast(ctx.role, SEES_CALLERS);
  return { items: rows.map((row) => toAgentRun(row, withCaller)), total };
}
