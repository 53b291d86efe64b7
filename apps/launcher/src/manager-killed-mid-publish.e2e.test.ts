// Fault: the manager is SIGKILLed while a PATCH republishes the configs of the 100 agents that use a
// resource. The publish protocol puts the resource write and every config upsert in one transaction,
// so afterwards either all 100 configs carry the new version or none does, and the pool engine serving
// them follows the table.
import { randomBytes, randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { ManagerClient } from '@agentplane/manager-client';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { whatsappIntegration } from './testing/integration-bodies.js';
import { startPoolPlatform } from './testing/pool-platform.js';
import { ServiceProcesses } from './testing/service-processes.js';

const AGENTS = 100;
const POLL_MS = 200;
// 100 agents created one by one, each with its database role: slow on a loaded machine, so a generous bound.
const TEST_TIMEOUT_MS = 180_000;

let database: TestDatabase;
const services = new ServiceProcesses();
// One key for both managers: the second one opens what the first one sealed.
const secretsKey = randomBytes(32).toString('base64');
const managerEnv = () => ({ DATABASE_URL: database.url, SECRETS_KEY: secretsKey });

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await services.stopAll();
  await database?.drop();
});

const publishedVersions = async () =>
  (await database.prisma.engineConfig.findMany({ select: { agentId: true, version: true } })).map((row) => ({
    agentId: row.agentId,
    version: Number(row.version),
  }));

const engineVersion = async (agentUrl: string) =>
  ((await (await fetch(`${agentUrl}/health`)).json()) as { config_version: number }).config_version;

/** The backend of the manager's publish, waiting for the row lock the test holds. */
async function blockedPublisher(
  observer: Awaited<ReturnType<TestDatabase['connectClient']>>,
): Promise<number | undefined> {
  const { rows } = await observer.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO engine_configs%'`,
  );
  return rows[0]?.pid;
}

it(
  'leaves all 100 configs at the old version or all at the new one, and engines agree with the table',
  async () => {
    // The agents are placed on the pool, the operator's default: one engine serves them all.
    const platform = await startPoolPlatform(services, {
      managerEnv: managerEnv(),
      engineEnv: { ENGINE_CONFIG_POLL_MS: String(POLL_MS) },
    });
    const firstManager = platform.managerUrl;
    const api = new ManagerClient(firstManager);
    const account = { email: `fault-${randomUUID()}@example.test`, password: 'fault pw!!' };
    await api.expect(201, 'POST', '/auth/signup', account);
    const integration = await api.expect<{ id: string }>(
      201,
      'POST',
      '/integrations/',
      whatsappIntegration('1065550001'),
    );
    const body = (i: number) => ({
      name: `agent ${i}`,
      framework: 'LLM',
      agent: { model: { provider: 'mock', name: 'echo' } },
      resources: { integration_ids: [integration.id] },
    });
    for (let i = 0; i < AGENTS; i++) await api.expect(201, 'POST', '/agents/', body(i));
    const before = await publishedVersions();
    expect(before.map((row) => row.version)).toEqual(Array(AGENTS).fill(1));

    // The first and the last agent in the order the publish upserts them (by id), loaded on the pool.
    const ids = before.map((row) => row.agentId).sort();
    const [firstId, lastId] = [ids[0] as string, ids.at(-1) as string];
    const engines = new Map<string, string>();
    for (const agentId of [firstId, lastId]) {
      const url = `${platform.poolUrl}/agents/${agentId}`;
      engines.set(agentId, url);
      await waitUntil(async () => (await engineVersion(url).catch(() => 0)) === 1, { what: `agent ${agentId} at v1` });
    }

    // The test holds the last agent's row, so the publish upserts the other 99 and then waits inside its
    // transaction: provably in progress when the manager is killed.
    const holder = await database.connectClient();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM engine_configs WHERE agent_id = $1 FOR UPDATE', [lastId]);
    const patch = api
      .request('PATCH', `/integrations/${integration.id}`, whatsappIntegration('1065550002'))
      .catch(() => undefined);
    const observer = await database.connectClient();
    let publisher: number | undefined;
    await waitUntil(
      async () => {
        publisher = await blockedPublisher(observer);
        return publisher !== undefined;
      },
      {
        what: "the manager's publish to wait for the held row",
        timeoutMs: 60_000,
      },
    );
    await services.kill(firstManager, 'SIGKILL');
    await patch;
    await holder.query('ROLLBACK');
    // The orphaned backend finishes its statement, finds its client gone, and rolls back as it exits.
    await waitUntil(
      async () => (await observer.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [publisher])).rowCount === 0,
      { what: "the killed manager's backend to exit" },
    );

    const afterKill = await publishedVersions();
    expect(new Set(afterKill.map((row) => row.version)).size).toBe(1);
    // Killed before its COMMIT was sent: none of the 100 moved.
    expect(afterKill.map((row) => row.version)).toEqual(Array(AGENTS).fill(1));
    for (const url of engines.values()) expect(await engineVersion(url)).toBe(1);

    // A manager started again publishes the same PATCH to all 100 at once, and the pool follows.
    const secondManager = await services.start('manager', platform.managerEnv);
    const again = new ManagerClient(secondManager);
    await again.expect(200, 'POST', '/auth/login', account);
    await again.expect(200, 'PATCH', `/integrations/${integration.id}`, whatsappIntegration('1065550002'));
    expect((await publishedVersions()).map((row) => row.version)).toEqual(Array(AGENTS).fill(2));
    for (const [agentId, url] of engines) {
      await waitUntil(async () => (await engineVersion(url)) === 2, { what: `agent ${agentId} to be served at v2` });
    }
  },
  TEST_TIMEOUT_MS,
);
