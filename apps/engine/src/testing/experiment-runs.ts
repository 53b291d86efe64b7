// What the manager's experiment worker writes for an engine, for the tests of pinned runs: a version's
// config as a pinned_engine_configs row, and a run pinned to that version queued on a thread of its own
// (source 'experiment', subject `experiment:<uuid>`, the manager's issuer), then the queue's NOTIFY.
import { randomUUID } from 'node:crypto';
import { aguiThreadKey } from '@agentplane/contracts';
import type { Db } from '@agentplane/db';
import type { AgentRow } from './engine-config-rows.js';

/** Stores `config` as the agent's pinned config of `version`, as the manager writes it before an experiment. */
export async function writePinnedConfigRow(db: Db, agent: AgentRow, version: number, config: unknown): Promise<void> {
  await db.pinnedEngineConfig.upsert({
    where: { agentId_version: { agentId: agent.agentId, version: BigInt(version) } },
    create: { ...agent, version: BigInt(version), config: config as object },
    update: { config: config as object },
  });
}

export type ExperimentRun = { runId: string; threadId: string; subject: string };

/** Queues a run of `content` pinned to `version` (null: not pinned), and tells the agent's engines. */
export async function queueExperimentRun(
  db: Db,
  options: { agentId: string; issuer: string; version: number | null; content: string; experimentId?: string },
): Promise<ExperimentRun> {
  const { agentId, issuer, version, content } = options;
  const experimentId = options.experimentId ?? randomUUID();
  const runId = `experiment:${experimentId}:${randomUUID()}:${version ?? 0}:0`;
  const subject = `experiment:${experimentId}`;
  const input = {
    threadId: runId,
    runId,
    state: {},
    messages: [{ id: `${runId}:message`, role: 'user', content }],
    tools: [],
    context: [],
    forwardedProps: {},
  };
  const threadKey = aguiThreadKey(agentId, { issuer, subject }, runId);
  await db.$transaction([
    db.$executeRaw`
      INSERT INTO agent_runs (agent_id, id, thread_id, thread_key, issuer, subject, source, status, input, pinned_version)
      VALUES (${agentId}::uuid, ${runId}, ${runId}, ${threadKey}, ${issuer}, ${subject}, 'experiment', 'pending',
              ${JSON.stringify(input)}::jsonb, ${version === null ? null : BigInt(version)})`,
    db.$executeRaw`SELECT pg_notify(run_channel, 'queue') FROM engine_channels WHERE agent_id = ${agentId}::uuid`,
  ]);
  return { runId, threadId: runId, subject };
}

export type FinishedRun = {
  status: string;
  agentVersion: number | null;
  errorCode: string | null;
  error: string | null;
};

/** The run's row once it is over (succeeded, failed…), as the manager reads an experiment's results. */
export async function readFinishedRun(db: Db, agentId: string, runId: string): Promise<FinishedRun | undefined> {
  const run = await db.agentRun.findUnique({ where: { agentId_id: { agentId, id: runId } } });
  if (run === null || run.status === 'pending' || run.status === 'running') return undefined;
  return {
    status: run.status,
    agentVersion: run.agentVersion === null ? null : Number(run.agentVersion),
    errorCode: run.errorCode,
    error: run.error,
  };
}

/** The text the run's assistant answered, from its stored events. */
export async function readRunReply(db: Db, agentId: string, runId: string): Promise<string> {
  const events = await db.runEvent.findMany({ where: { agentId, runId }, orderBy: { seq: 'asc' } });
  return events
    .map((event) => JSON.parse(event.data) as { type: string; delta?: string })
    .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
    .map((event) => event.delta ?? '')
    .join('');
}
