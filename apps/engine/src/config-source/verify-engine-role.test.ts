// An engine runs only as its agent's own database role: started the old way, with the platform's
// DATABASE_URL, or with a password that was rotated since, it stops at start and says what to do.
import { randomUUID } from 'node:crypto';
import { dropEngineRole, engineRoleName, rotateEngineRolePassword } from '@agentplane/db';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { ConfigError } from '@agentplane/server-kit';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { engineCredentialsFor, startDatabaseEngine, startTestEngine } from '../testing/test-engine.js';

let database: TestDatabase;
let agentId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  agentId = (await makeAgent(database.prisma, (await makeWorkspace(database.prisma)).id)).id;
});

afterAll(async () => {
  await database?.drop();
});

describe('starting an engine in database mode', () => {
  it("refuses the platform's DATABASE_URL, naming the endpoint that issues engine credentials", async () => {
    const { AGENT_KEY } = await engineCredentialsFor(database, agentId);
    const start = startTestEngine({ AGENT_ID: agentId, AGENT_KEY, DATABASE_URL: database.url });
    await expect(start).rejects.toThrow(ConfigError);
    await expect(start).rejects.toThrow(
      /not as this agent's engine role .*POST \/api\/v1\/agents\/\{id\}\/engine-credentials/,
    );
  });

  it("refuses another agent's role", async () => {
    const other = await engineCredentialsFor(database, randomUUID());
    const { AGENT_KEY } = await engineCredentialsFor(database, agentId);
    await expect(startTestEngine({ AGENT_ID: agentId, AGENT_KEY, DATABASE_URL: other.DATABASE_URL })).rejects.toThrow(
      /not as this agent's engine role/,
    );
  });

  it('refuses a wrong password, saying that credentials are rotated', async () => {
    const { DATABASE_URL, AGENT_KEY } = await engineCredentialsFor(database, agentId);
    const wrong = new URL(DATABASE_URL);
    wrong.password = 'rotated-away';
    await expect(startTestEngine({ AGENT_ID: agentId, AGENT_KEY, DATABASE_URL: wrong.toString() })).rejects.toThrow(
      /refused this engine's login \(28P01\).*engine-credentials/,
    );
  });
});

describe('a running engine whose credentials are revoked', () => {
  async function startServingEngine() {
    const workspace = await makeWorkspace(database.prisma);
    const agent = await makeAgent(database.prisma, workspace.id);
    const row = { agentId: agent.id, workspaceId: workspace.id };
    await writeConfigRow(database.prisma, row, 1, makeLlmEngineConfig(row));
    const engine = await startDatabaseEngine(database, agent.id, {
      ENGINE_CONFIG_POLL_MS: '50',
      ENGINE_CONFIG_LISTEN: 'false',
    });
    await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
    return { engine, agentId: agent.id };
  }

  it('stops serving when its role is dropped under its open connections (the agent was deleted)', async () => {
    const { engine, agentId } = await startServingEngine();
    try {
      // The row stays: only the role's going can stop this engine.
      await dropEngineRole(database.prisma, agentId);
      await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 503, {
        what: 'the engine to stop serving',
      });
    } finally {
      await engine.shutdown();
    }
  });

  it('stops serving once the database refuses its login, rather than keep its last config', async () => {
    const { engine, agentId } = await startServingEngine();
    const agent = { id: agentId };
    try {
      await rotateEngineRolePassword(database.prisma, agent.id);
      // Open connections outlive a password change; the next connection is the one refused.
      await database.prisma.$queryRawUnsafe(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1',
        engineRoleName(agent.id),
      );
      await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 503, {
        what: 'the engine to stop serving',
      });
      const health = (await (await fetch(`${engine.url}/health`)).json()) as { detail?: string };
      expect(health.detail).toMatch(/credentials were revoked/);
    } finally {
      await engine.shutdown();
    }
  });
});
