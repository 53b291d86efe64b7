// Which key a model request carries, proven on the wire: a local capture server stands in for a
// tenant's baseUrl (and, in one case, for the operator's OPENAI_BASE_URL) and records every header.
// The engine runs in database mode, as deployed: it holds its agent's role DATABASE_URL and AGENT_KEY.
import { randomUUID } from 'node:crypto';
import { EventType, HttpAgent } from '@ag-ui/client';
import { createAgentKeyring } from '@agentplane/db';
import {
  createTestDatabase,
  type EngineCredentialsEnv,
  makeAgent,
  makeWorkspace,
  TEST_PLATFORM_KEY,
  type TestDatabase,
} from '@agentplane/db/testing';
import {
  type FakeOpenAiServer,
  overrideEnvironment,
  type RecordedRequest,
  startFakeOpenAiServer,
  waitUntil,
} from '@agentplane/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../../start-engine.js';
import { writeConfigRow } from '../../testing/engine-config-rows.js';
import { makeLlmEngineConfig, type TestConfigOptions } from '../../testing/engine-configs.js';
import { runWithClient } from '../../testing/run-with-client.js';
import { engineCredentialsFor, startDatabaseEngine } from '../../testing/test-engine.js';

const OPERATOR_KEY = `sk-operator-${randomUUID()}`;
// The OpenAI SDK reads these from process.env whenever it is not told otherwise; set here, they would
// reach a tenant's server unless the engine passes every option itself.
const SDK_VARIABLES = {
  OPENAI_API_KEY: OPERATOR_KEY,
  OPENAI_ADMIN_KEY: `sk-admin-${randomUUID()}`,
  OPENAI_ORG_ID: `org-${randomUUID()}`,
  OPENAI_PROJECT_ID: `proj-${randomUUID()}`,
};

let tenant: FakeOpenAiServer;
let operator: FakeOpenAiServer;
let database: TestDatabase;
let agentId: string;
let workspaceId: string;
let credentials: EngineCredentialsEnv;
let version = 0;
let restoreEnvironment = () => {};
const engines: RunningEngine[] = [];

beforeAll(async () => {
  [tenant, operator, database] = await Promise.all([
    startFakeOpenAiServer(),
    startFakeOpenAiServer(),
    createTestDatabase(),
  ]);
  workspaceId = (await makeWorkspace(database.prisma)).id;
  agentId = (await makeAgent(database.prisma, workspaceId)).id;
  credentials = await engineCredentialsFor(database, agentId);
  restoreEnvironment = overrideEnvironment(SDK_VARIABLES);
});

afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.shutdown()));
  tenant.requests.length = 0;
  operator.requests.length = 0;
});

afterAll(async () => {
  restoreEnvironment();
  await Promise.all([tenant?.close(), operator?.close(), database?.drop()]);
});

/** Publishes the agent's config with `model` as the manager does, in its engine_configs row. */
async function publish(model: TestConfigOptions['model']): Promise<number> {
  version += 1;
  const config = makeLlmEngineConfig({ agentId, workspaceId, model });
  await writeConfigRow(database.prisma, { agentId, workspaceId }, version, config);
  return version;
}

/** An engine holding every credential an operator might give it, running an agent with `model`. */
async function startEngine(model: TestConfigOptions['model'], env: Record<string, string> = {}) {
  const published = await publish(model);
  const engine = await startDatabaseEngine(database, agentId, {
    ...SDK_VARIABLES,
    OPENAI_BASE_URL: operator.baseUrl,
    TENANT_KEY: 'sk-allowed-variable',
    ...env,
  });
  engines.push(engine);
  await waitUntil(
    async () => {
      const response = await fetch(`${engine.url}/health`);
      return ((await response.json()) as { config_version?: number }).config_version === published;
    },
    { what: `config version ${published} to be served` },
  );
  return engine;
}

async function run(engine: RunningEngine) {
  const agent = new HttpAgent({
    url: `${engine.url}/agent/run`,
    threadId: randomUUID(),
    initialMessages: [{ id: randomUUID(), role: 'user', content: 'hi' }],
  });
  return runWithClient(agent);
}

/** Every credential of the engine's environment that must never leave for a tenant's server. */
function leakedCredentials(request: RecordedRequest): string[] {
  const sent = JSON.stringify({ headers: request.headers, body: request.body });
  const passwords = [database.url, credentials.DATABASE_URL].map((url) => new URL(url).password).filter(Boolean);
  return [
    ...Object.values(SDK_VARIABLES),
    TEST_PLATFORM_KEY,
    credentials.AGENT_KEY,
    database.url,
    credentials.DATABASE_URL,
    ...passwords,
  ].filter((secret) => sent.includes(secret));
}

describe('model API keys', () => {
  it("sends no key at all to a tenant's baseUrl when the agent names none", async () => {
    tenant.script({ text: ['hello'] });
    const engine = await startEngine({ provider: 'openai', name: 'm', baseUrl: tenant.baseUrl });
    const { last } = await run(engine);
    expect(last?.type).toBe(EventType.RUN_FINISHED);
    const [request] = tenant.requests;
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.headers['openai-organization']).toBeUndefined();
    expect(request?.headers['openai-project']).toBeUndefined();
    expect(leakedCredentials(request as RecordedRequest)).toEqual([]);
  });

  it("sends the agent's own apiKey, and only that, to its baseUrl", async () => {
    tenant.script({ text: ['hello'] });
    const engine = await startEngine({ provider: 'openai', name: 'm', baseUrl: tenant.baseUrl, apiKey: 'sk-tenant' });
    await run(engine);
    const [request] = tenant.requests;
    expect(request?.authorization).toBe('Bearer sk-tenant');
    expect(leakedCredentials(request as RecordedRequest)).toEqual([]);
  });

  it('opens an apiKey published sealed, as the manager publishes it', async () => {
    tenant.script({ text: ['hello'] });
    const apiKey = createAgentKeyring(TEST_PLATFORM_KEY).boxFor(agentId).seal('sk-sealed-tenant');
    const engine = await startEngine({ provider: 'openai', name: 'm', baseUrl: tenant.baseUrl, apiKey });
    await run(engine);
    expect(tenant.requests[0]?.authorization).toBe('Bearer sk-sealed-tenant');
  });

  it("sends the operator's OPENAI_API_KEY to the operator's OPENAI_BASE_URL when the agent names no server", async () => {
    operator.script({ text: ['hello'] });
    const engine = await startEngine({ provider: 'openai', name: 'm' });
    const { last } = await run(engine);
    expect(last?.type).toBe(EventType.RUN_FINISHED);
    expect(operator.requests[0]?.authorization).toBe(`Bearer ${OPERATOR_KEY}`);
  });

  it('reads a key variable the operator listed in MODEL_API_KEY_ENVS', async () => {
    tenant.script({ text: ['hello'] });
    const engine = await startEngine(
      { provider: 'openai', name: 'm', baseUrl: tenant.baseUrl, apiKeyEnv: 'TENANT_KEY' },
      { MODEL_API_KEY_ENVS: 'TENANT_KEY' },
    );
    await run(engine);
    expect(tenant.requests[0]?.authorization).toBe('Bearer sk-allowed-variable');
  });

  it.each(['AGENT_KEY', 'DATABASE_URL', 'SECRETS_KEY', 'TENANT_KEY', 'OPENAI_API_KEY'])(
    'refuses runs of an agent naming %s when MODEL_API_KEY_ENVS does not list it, with a generic error',
    async (variable) => {
      const engine = await startEngine({ provider: 'openai', name: 'm', baseUrl: tenant.baseUrl, apiKeyEnv: variable });
      const { last } = await run(engine);
      expect(last).toMatchObject({
        type: EventType.RUN_ERROR,
        code: 'model_unavailable',
        message: "The agent's model is not available on this engine.",
      });
      expect(tenant.requests).toEqual([]);
    },
  );
});
