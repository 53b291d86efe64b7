// AGENT_VERSION_RETENTION and the start-up backfill, on a manager that keeps only 2 versions per agent.
import { createAgentKeyring, createSecretBox } from '@agentplane/db';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
  TEST_SECRETS_KEY,
} from '../testing/manager-test-app.js';
import { agentBody, createAgentThroughApi } from '../testing/resource-fixtures.js';
import { backfillAgentVersions } from './backfill-agent-versions.js';

let ctx: ManagerTestContext;
let owner: SignedInUser;

beforeAll(async () => {
  ctx = await startManagerTestApp({ AGENT_VERSION_RETENTION: '2' });
  owner = await signUpUser(ctx.app);
});

afterAll(async () => {
  await ctx?.close();
});

const storedVersions = async (agentId: string) =>
  (
    await ctx.database.prisma.agentVersion.findMany({
      where: { agentId },
      select: { version: true },
      orderBy: { version: 'asc' },
    })
  ).map((row) => Number(row.version));

async function patchInstructions(agentId: string, instructions: string) {
  const body = agentBody({}, { name: 'kept', agent: { model: { provider: 'mock', name: 'echo' }, instructions } });
  const response = await owner.agent.patch(`/api/v1/agents/${agentId}`).send(body);
  expect(response.status).toBe(200);
}

async function insertRun(agentId: string, id: string, version: number) {
  await ctx.database.prisma.$executeRaw`
    INSERT INTO agent_runs (id, agent_id, thread_id, thread_key, source, status, agent_version)
    VALUES (${id}, ${agentId}::uuid, 't', 'k', 'stream', 'succeeded', ${version}::bigint)`;
}

describe('AGENT_VERSION_RETENTION', () => {
  it('keeps the newest versions and any version a run references, and prunes that one once its runs are gone', async () => {
    const agent = await createAgentThroughApi(owner);
    await patchInstructions(agent.id, 'two');
    await insertRun(agent.id, 'ran-on-2', 2);
    for (const instructions of ['three', 'four', 'five']) await patchInstructions(agent.id, instructions);
    expect(await storedVersions(agent.id)).toEqual([2, 4, 5]);

    // The engine's run retention deleted the run: the next publish prunes the version.
    await ctx.database.prisma.agentRun.deleteMany({ where: { agentId: agent.id } });
    await patchInstructions(agent.id, 'six');
    expect(await storedVersions(agent.id)).toEqual([5, 6]);
  });

  it('keeps a version an active experiment names, and prunes it once the experiment has ended', async () => {
    const agent = await createAgentThroughApi(owner);
    await patchInstructions(agent.id, 'two');
    const [experiment] = await ctx.database.prisma.$queryRaw<{ id: string }[]>`
      INSERT INTO experiments (workspace_id, agent_id, dataset_version, name, agent_versions, scorers, repeats,
                               concurrency, item_count, run_count)
      SELECT workspace_id, id, 1, 'compares 1', ARRAY[1]::bigint[], '[]', 1, 1, 1, 1 FROM agents WHERE id = ${agent.id}::uuid
      RETURNING id`;
    for (const instructions of ['three', 'four']) await patchInstructions(agent.id, instructions);
    expect(await storedVersions(agent.id)).toEqual([1, 3, 4]);

    await ctx.database.prisma.experiment.update({ where: { id: experiment?.id }, data: { status: 'completed' } });
    await patchInstructions(agent.id, 'five');
    expect(await storedVersions(agent.id)).toEqual([4, 5]);
  });

  it("prunes only the published agent's versions", async () => {
    const quiet = await createAgentThroughApi(owner);
    const busy = await createAgentThroughApi(owner);
    for (const instructions of ['a', 'b', 'c']) await patchInstructions(busy.id, instructions);
    expect(await storedVersions(quiet.id)).toEqual([1]);
    expect(await storedVersions(busy.id)).toEqual([3, 4]);
  });
});

describe('the start-up backfill', () => {
  const backfill = () =>
    backfillAgentVersions(ctx.database.prisma, {
      box: createSecretBox(TEST_SECRETS_KEY),
      agentKeys: createAgentKeyring(TEST_SECRETS_KEY),
      versionRetention: 2,
    });

  it('records the current config of an agent published before versions, once', async () => {
    const agent = await createAgentThroughApi(owner);
    await patchInstructions(agent.id, 'published before versions');
    // As a database upgraded from before versions: a published config, no version rows.
    await ctx.database.prisma.agentVersion.deleteMany({ where: { agentId: agent.id } });
    expect(await backfill()).toBeGreaterThanOrEqual(1);
    const [row] = await ctx.database.prisma.agentVersion.findMany({ where: { agentId: agent.id } });
    expect(row).toMatchObject({ version: 2n, cause: 'backfill', authorId: null });
    expect(row?.snapshot).toMatchObject({ spec: { agent: { instructions: 'published before versions' } } });
    expect(await backfill()).toBe(0);

    const listed = await owner.agent.get(`/api/v1/agents/${agent.id}/versions`);
    expect(listed.body).toEqual([expect.objectContaining({ version: 2, cause: 'backfill', current: true })]);
  });
});
