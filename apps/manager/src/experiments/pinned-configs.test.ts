// The pinned configs of an experiment's versions, on a real database: sealed with the key of the engine
// serving the agent (never the platform key), with the agent's current budgets, sealed again after a
// move, left alone when nothing changed, and still usable once their version's snapshot is pruned.
import { mapEngineConfigSecrets, type TEngineConfig } from '@agentplane/contracts';
import { createAgentKeyring, createSecretBox, inTransaction, isSealedWithOtherKey } from '@agentplane/db';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { agentBody } from '../testing/resource-fixtures.js';
import { MissingVersionsError, prunePinnedConfigs, writePinnedConfigs } from './pinned-configs.js';

const API_KEY = 'sk-pinned-test-key-0123456789';

let ctx: ManagerTestContext;
let owner: SignedInUser;
let agentId: string;

beforeAll(async () => {
  ctx = await startManagerTestApp();
  owner = await signUpUser(ctx.app);
  const body = (instructions: string) =>
    agentBody({}, { agent: { model: { provider: 'mock', name: 'echo', apiKey: API_KEY }, instructions } });
  agentId = (await owner.agent.post('/api/v1/agents/').send(body('One.'))).body.id;
  expect((await owner.agent.patch(`/api/v1/agents/${agentId}`).send(body('Two.'))).status).toBe(200);
});
afterAll(async () => {
  await ctx?.close();
});

const keys = () => {
  const { current, previous } = ctx.config.secretsKey;
  return { box: createSecretBox(current, previous), agentKeys: createAgentKeyring(current, previous) };
};

const write = (pool: string | null, versions = [1, 2]) =>
  inTransaction(ctx.database.prisma, (tx) =>
    writePinnedConfigs(tx, { agentId, workspaceId: owner.workspaceId, pool, versions, ...keys() }),
  );

async function readPinned(version: number) {
  const row = await ctx.database.prisma.pinnedEngineConfig.findUniqueOrThrow({
    where: { agentId_version: { agentId, version: BigInt(version) } },
  });
  return { config: row.config as TEngineConfig, createdAt: row.createdAt };
}

function secretsOf(config: TEngineConfig): string[] {
  const found: string[] = [];
  mapEngineConfigSecrets(config, (value) => {
    found.push(value);
    return value;
  });
  return found;
}

describe('pinned configs', () => {
  it('are each version’s config, sealed for the agent’s engine, with the current budgets', async () => {
    await write(null);
    const agentBox = keys().agentKeys.boxFor(agentId);
    for (const [version, instructions] of [
      [1, 'One.'],
      [2, 'Two.'],
    ] as const) {
      const { config } = await readPinned(version);
      expect(config.agent).toMatchObject({ config: { instructions } });
      const [secret] = secretsOf(config);
      expect(secret).not.toContain(API_KEY);
      expect(isSealedWithOtherKey(secret as string, agentBox)).toBe(false);
      expect(agentBox.open(secret as string)).toBe(API_KEY);
    }
    const published = await ctx.database.prisma.engineConfig.findUniqueOrThrow({ where: { agentId } });
    expect((await readPinned(1)).config.budgets).toEqual((published.config as TEngineConfig).budgets);
  });

  it('are left alone when nothing changed, and sealed again for a new placement', async () => {
    const before = await readPinned(1);
    await write(null);
    expect((await readPinned(1)).createdAt).toEqual(before.createdAt);

    await write('elsewhere');
    const poolBox = keys().agentKeys.boxForPlacement({ agentId, pool: 'elsewhere' });
    const [secret] = secretsOf((await readPinned(1)).config);
    expect(isSealedWithOtherKey(secret as string, poolBox)).toBe(false);
    expect(poolBox.open(secret as string)).toBe(API_KEY);
  });

  it('keep a version pinned after its snapshot is pruned, and refuse one never pinned', async () => {
    await ctx.database.prisma.agentVersion.deleteMany({ where: { agentId, version: 1n } });
    await write('elsewhere');
    await expect(write(null)).rejects.toBeInstanceOf(MissingVersionsError);
    await expect(write('elsewhere', [1, 7])).rejects.toMatchObject({ versions: [7] });
  });

  it('are pruned but for the versions kept', async () => {
    const pruned = await inTransaction(ctx.database.prisma, (tx) => prunePinnedConfigs(tx, agentId, [2]));
    expect(pruned).toBe(1);
    const left = await ctx.database.prisma.pinnedEngineConfig.findMany({ where: { agentId } });
    expect(left.map((row) => Number(row.version))).toEqual([2]);
  });
});
