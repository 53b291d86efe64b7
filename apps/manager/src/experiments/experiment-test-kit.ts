// What the experiment suites share: an agent with versions, a dataset with items, a launch, the worker's
// dependencies, and a stand-in engine that ends pending experiment runs as an engine records them (for
// the suites about the manager's side; experiment-engine.test.ts runs a real engine).
import { type TExperiment, ZExperiment } from '@agentplane/contracts';
import { createAgentKeyring, createSecretBox, type Db } from '@agentplane/db';
import { createLogger } from '@agentplane/server-kit';
import type { ManagerTestContext, SignedInUser } from '../testing/manager-test-app.js';
import { agentBody } from '../testing/resource-fixtures.js';
import type { ExperimentWorkerDependencies } from './experiment-worker.js';

function llmAgent(instructions: string | undefined) {
  return agentBody({}, { name: 'Support', agent: { model: { provider: 'mock', name: 'echo' }, instructions } });
}

/** An agent whose versions 1, 2… have the instructions given, in order. */
export async function createVersionedAgent(user: SignedInUser, instructions: (string | undefined)[]): Promise<string> {
  const [first, ...rest] = instructions;
  const created = await user.agent.post('/api/v1/agents/').send(llmAgent(first));
  if (created.status !== 201) throw new Error(`POST agent: ${created.status} ${created.text}`);
  for (const text of rest) {
    const patched = await user.agent.patch(`/api/v1/agents/${created.body.id}`).send(llmAgent(text));
    if (patched.status !== 200) throw new Error(`PATCH agent: ${patched.status} ${patched.text}`);
  }
  return created.body.id as string;
}

export type KitItem = { question: string; reply?: string };

export async function createDataset(user: SignedInUser, items: KitItem[]): Promise<{ id: string; itemIds: string[] }> {
  const created = await user.agent
    .post('/api/v1/datasets')
    .send({ name: `set-${Math.random().toString(36).slice(2)}` });
  if (created.status !== 201) throw new Error(`POST dataset: ${created.status} ${created.text}`);
  const added = await user.agent.post(`/api/v1/datasets/${created.body.id}/items`).send({
    items: items.map(({ question, reply }) => ({
      input: [{ role: 'user', content: question }],
      ...(reply === undefined ? {} : { expected: { reply } }),
    })),
  });
  if (added.status !== 201) throw new Error(`POST items: ${added.status} ${added.text}`);
  return { id: created.body.id, itemIds: (added.body.items as { id: string }[]).map((item) => item.id) };
}

export const EXACT_AND_CONTAINS = [
  { name: 'exact', kind: 'exact_match' },
  { name: 'apple', kind: 'contains', texts: ['apple'], mode: 'any' },
];

export async function launch(
  user: SignedInUser,
  agentId: string,
  body: Record<string, unknown>,
  workspaceId = user.workspaceId,
): Promise<TExperiment> {
  const response = await user.agent
    .post(`/api/v1/agents/${agentId}/experiments`)
    .set('x-workspace-id', workspaceId)
    .send(body);
  if (response.status !== 201) throw new Error(`launch: ${response.status} ${response.text}`);
  return ZExperiment.parse(response.body);
}

export function workerDependencies(ctx: ManagerTestContext, overrides: Partial<ExperimentWorkerDependencies> = {}) {
  const { secretsKey } = ctx.config;
  return {
    db: ctx.database.prisma,
    box: createSecretBox(secretsKey.current, secretsKey.previous),
    agentKeys: createAgentKeyring(secretsKey.current, secretsKey.previous),
    egressAllow: ctx.config.egressAllow,
    logger: createLogger({ name: 'test', level: 'silent' }),
    pollMs: 60_000,
    judgeTimeoutMs: 5_000,
    ...overrides,
  } satisfies ExperimentWorkerDependencies;
}

export type StandInAnswer = { status: 'succeeded' | 'failed'; reply?: string; error?: string; errorCode?: string };

/**
 * Ends the agent's pending experiment runs as an engine would record them (claimed, then finished with
 * their events and usage); `answer` says how each one ends. Returns the ids it ended.
 */
export async function endPendingRuns(
  db: Db,
  agentId: string,
  answer: (run: { id: string; pinnedVersion: number; question: string }) => StandInAnswer,
): Promise<string[]> {
  const pending = await db.agentRun.findMany({
    where: { agentId, source: 'experiment', status: 'pending' },
    select: { id: true, pinnedVersion: true, input: true },
  });
  for (const run of pending) {
    const question = ((run.input as { messages: { content: string }[] }).messages[0]?.content ?? '') as string;
    const outcome = answer({ id: run.id, pinnedVersion: Number(run.pinnedVersion), question });
    const events = [
      { type: 'RUN_STARTED' },
      ...(outcome.reply === undefined
        ? []
        : [{ type: 'TEXT_MESSAGE_CONTENT', messageId: `${run.id}:m`, delta: outcome.reply }]),
      outcome.status === 'succeeded' ? { type: 'RUN_FINISHED' } : { type: 'RUN_ERROR', message: outcome.error },
    ];
    const claimed = await db.agentRun.updateMany({
      where: { agentId, id: run.id, status: 'pending' },
      data: {
        status: outcome.status,
        agentVersion: run.pinnedVersion,
        startedAt: new Date(Date.now() - 20),
        finishedAt: new Date(),
        error: outcome.error ?? null,
        errorCode: outcome.errorCode ?? null,
        usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7, model_calls: 1 },
        lastSeq: events.length,
      },
    });
    if (claimed.count === 0) continue;
    await db.runEvent.createMany({
      data: events.map((event, index) => ({ agentId, runId: run.id, seq: index + 1, data: JSON.stringify(event) })),
    });
  }
  return pending.map((run) => run.id);
}

/** The mock model's reply (apps/engine's mock-chat-model.ts): it echoes the last user message. */
export const mockReply = (question: string) => `You said: ${question.trim()}`;
