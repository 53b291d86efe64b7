// Every operation of the manager's own OpenAPI document, fuzzed from the document's schemas: mostly
// valid requests, then mutated as a hostile client would (wrong types, missing and extra fields, NUL,
// lone surrogates and __proto__ in strings and keys, huge and deeply nested values, malformed or
// upper-case path ids, bodies that are not JSON), signed in as owner or viewer or not at all. Every
// answer must be 2xx or a documented 4xx problem+json; never a 5xx. Routes added later are fuzzed too,
// since the test walks the served document. The seed is fixed (FUZZ_SEED overrides it, FUZZ_RUNS the
// number of runs per operation), so a failure replays exactly.
import { JSON_BODY_MAX_BYTES, JSONL_MEDIA_TYPE } from '@agentplane/contracts';
import { applyMutations, type Mutation, mutationArbitrary, toJsonText } from '@agentplane/testing';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import fc from 'fast-check';
import request from 'supertest';
import {
  addToWorkspace,
  type ManagerTestContext,
  problemShapeFault,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
  uniquePoolName,
} from '../testing/manager-test-app.js';
import {
  agentBody,
  createThroughApi,
  guardrailBody,
  mcpServerBody,
  observabilityBody,
  ssoBody,
  whatsappBody,
} from '../testing/resource-fixtures.js';
import { type JsonSchema, SchemaArbitraries } from './schema-arbitraries.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);

type Parameter = { name: string; in: 'path' | 'query' | 'header'; schema?: JsonSchema };
type Operation = {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, unknown>;
};
type OpenApi = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema> };
};
type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
type Persona = 'owner' | 'viewer' | 'anonymous';

// Agents are placed on a pool by default, so that placements are fuzzed too.
const POOL = uniquePoolName();
const ctx: ManagerTestContext = await startManagerTestApp({
  ENGINE_POOLS: `${POOL}=http://127.0.0.1:8101`,
  DEFAULT_ENGINE_POOL: POOL,
});
const document = (await request(ctx.app).get('/api/v1/openapi.json')).body as OpenApi;
const DATASET_ITEM = { input: [{ role: 'user', content: 'fuzzed' }], expected: { reply: 'ok' } };
const VALID_JSONL_LINES = [DATASET_ITEM];
// Bodies the test database accepts, beside the document's examples (whose ids it does not have).
const VALID_BODIES: Record<string, unknown[]> = {
  AgentCreate: [agentBody(), agentBody({}, { deployment: { mode: 'dedicated' } })],
  AgentUpdate: [agentBody(), agentBody({}, { deployment: { mode: 'pool', pool: POOL } })],
  IntegrationCreate: [whatsappBody()],
  IntegrationUpdate: [whatsappBody()],
  McpServerCreate: [mcpServerBody()],
  McpServerUpdate: [mcpServerBody()],
  SsoCreate: [ssoBody()],
  SsoUpdate: [ssoBody()],
  ObservabilityCreate: [observabilityBody()],
  ObservabilityUpdate: [observabilityBody()],
  WorkspaceBody: [{ name: 'fuzzed' }],
  DatasetInput: [{ name: 'fuzzed' }],
  DatasetItemInput: [DATASET_ITEM],
  WorkspaceUpdate: [{ name: 'fuzzed', default_deployment: { mode: 'pool', pool: POOL } }],
};
const schemas = new SchemaArbitraries(document.components.schemas, VALID_BODIES);

// Deletions last, the workspace's own last of all, so that the fixtures serve every other operation first.
const rank = (method: string, path: string) =>
  method !== 'delete' ? 0 : path.startsWith('/api/v1/workspaces') ? 2 : 1;
const operations = Object.entries(document.paths)
  .flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, operation]) => ({ method: method as Method, path, operation })),
  )
  .sort((a, b) => rank(a.method, a.path) - rank(b.method, b.path));

type Fixtures = {
  users: Record<Exclude<Persona, 'anonymous'>, SignedInUser>;
  /** Known ids by the path segment that names their kind (`agents`, `members`…). */
  idsBySegment: Record<string, string[]>;
  workspaceIds: string[];
};
let fixtures: Fixtures;

beforeAll(async () => {
  const [owner, viewer, stranger] = [await signUpUser(ctx.app), await signUpUser(ctx.app), await signUpUser(ctx.app)];
  await addToWorkspace(owner, viewer, 'viewer');
  const integration = await createThroughApi(owner, '/api/v1/integrations/', whatsappBody());
  const mcpServer = await createThroughApi(owner, '/api/v1/mcp-servers/', mcpServerBody());
  const sso = await createThroughApi(owner, '/api/v1/sso/', ssoBody());
  const observability = await createThroughApi(owner, '/api/v1/observability/', observabilityBody());
  const guardrail = await createThroughApi(owner, '/api/v1/guardrails/', guardrailBody());
  const resources = {
    integration_ids: [integration],
    mcp_server_ids: [mcpServer],
    guardrail_ids: [guardrail],
    sso_id: sso,
    observability_id: observability,
  };
  const agent = await createThroughApi(owner, '/api/v1/agents/', agentBody(resources));
  const spare = await createThroughApi(owner, '/api/v1/workspaces/', { name: 'spare' });
  const theirAgent = await createThroughApi(stranger, '/api/v1/agents/', agentBody());
  const workspaceIds = [owner.workspaceId, spare, stranger.workspaceId];
  const dataset = await createThroughApi(owner, '/api/v1/datasets', { name: 'fuzzed' });
  const added = await owner.agent.post(`/api/v1/datasets/${dataset}/items`).send({ items: [DATASET_ITEM] });
  fixtures = {
    users: { owner, viewer },
    idsBySegment: {
      integrations: [integration],
      'mcp-servers': [mcpServer],
      sso: [sso],
      observability: [observability],
      guardrails: [guardrail],
      agents: [agent, theirAgent],
      workspaces: workspaceIds,
      members: [owner.userId, viewer.userId, stranger.userId],
      'engine-pools': [POOL],
      datasets: [dataset],
      items: [added.body.items[0].id],
    },
    workspaceIds,
  };
});
afterAll(() => ctx?.close());

const MALFORMED_IDS = ['not-a-uuid', '%C0%AF', '%ZZ', '%FF%FE', '%00', '%E2%80%AE', '..', '0', 'a'.repeat(300)];

/**
 * Ids for the parameter after `segment` in a path: mostly known ones of that kind (any known one for a
 * segment this test does not know, such as a route added later), some in upper case, some malformed.
 */
function pathIdArbitrary(segment: string): fc.Arbitrary<string> {
  const known = fixtures.idsBySegment[segment] ?? Object.values(fixtures.idsBySegment).flat();
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...known) },
    { weight: 2, arbitrary: fc.constantFrom(...known).map((id) => id.toUpperCase()) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: fc.constantFrom(...MALFORMED_IDS) },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent) },
  );
}

const HOSTILE_QUERY_VALUES = ['', '-1', '1e3', ' 5', '0x10', '99999999999999999999', '%00', 'a%00b', '%FF'];

function queryArbitrary(parameters: Parameter[]): fc.Arbitrary<string> {
  const pairs = parameters.map((parameter) =>
    fc
      .oneof(
        { weight: 3, arbitrary: fc.constant(undefined) },
        { weight: 2, arbitrary: schemas.valueOf(parameter.schema).map((value) => encodeURIComponent(String(value))) },
        { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_QUERY_VALUES) },
      )
      .map((value) => (value === undefined ? undefined : `${parameter.name}=${value}`)),
  );
  return fc.tuple(...pairs).map((parts) => parts.filter((part) => part !== undefined).join('&'));
}

// Mostly the owner's own workspace (absent or named), so that requests get past the access check.
function workspaceHeaderArbitrary(): fc.Arbitrary<string | undefined> {
  const [own] = fixtures.workspaceIds as [string];
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.constantFrom(own, own.toUpperCase()) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...fixtures.workspaceIds, 'not-a-uuid', '00000000-0000-4000-8000-000000000000'),
    },
  );
}

type BodyMode = 'json' | 'jsonl' | 'none' | 'malformed' | 'text' | 'oversized';

function bodyArbitrary(operation: Operation) {
  const schema = operation.requestBody?.content['application/json']?.schema;
  const value = schema === undefined ? fc.jsonValue({ maxDepth: 2 }) : schemas.valueOf(schema);
  // A JSON Lines body (a dataset import): lines of JSON, some of them what the route takes.
  const takesJsonl = operation.requestBody?.content[JSONL_MEDIA_TYPE] !== undefined;
  const mode = fc.oneof(
    { weight: takesJsonl ? 60 : 0, arbitrary: fc.constant<BodyMode>('jsonl') },
    { weight: schema === undefined ? 5 : 60, arbitrary: fc.constant<BodyMode>('json') },
    { weight: schema === undefined ? 30 : 5, arbitrary: fc.constant<BodyMode>('none') },
    { weight: 5, arbitrary: fc.constantFrom<BodyMode>('malformed', 'text') },
    { weight: 1, arbitrary: fc.constant<BodyMode>('oversized') },
  );
  const mutations = fc.oneof(
    { weight: 1, arbitrary: fc.constant([]) },
    { weight: 3, arbitrary: fc.array(mutationArbitrary, { minLength: 1, maxLength: 1 }) },
    { weight: 1, arbitrary: fc.array(mutationArbitrary, { minLength: 2, maxLength: 2 }) },
  );
  return fc.record({ mode, value, mutations });
}

type Case = {
  persona: Persona;
  pathIds: string[];
  query: string;
  workspace: string | undefined;
  body: { mode: BodyMode; value: unknown; mutations: Mutation[] };
};

function caseArbitrary(path: string, operation: Operation): fc.Arbitrary<Case> {
  const parameters = operation.parameters ?? [];
  const pathParams = parameters.filter((parameter) => parameter.in === 'path');
  const segmentBefore = (name: string) => path.split('/').at(path.split('/').indexOf(`{${name}}`) - 1) ?? '';
  const hasWorkspaceHeader = parameters.some((parameter) => parameter.in === 'header');
  return fc.record({
    persona: fc.oneof(
      { weight: 4, arbitrary: fc.constant<Persona>('owner') },
      { weight: 1, arbitrary: fc.constantFrom<Persona>('viewer', 'anonymous') },
    ),
    pathIds: fc.tuple(...pathParams.map((parameter) => pathIdArbitrary(segmentBefore(parameter.name)))),
    query: queryArbitrary(parameters.filter((parameter) => parameter.in === 'query')),
    workspace: hasWorkspaceHeader ? workspaceHeaderArbitrary() : fc.constant(undefined),
    body: bodyArbitrary(operation),
  }) as fc.Arbitrary<Case>;
}

function urlOf(path: string, testCase: Case): string {
  let index = 0;
  const filled = path.replace(/\{[^}]+\}/g, () => testCase.pathIds[index++] ?? '');
  return testCase.query === '' ? filled : `${filled}?${testCase.query}`;
}

function send(method: Method, url: string, testCase: Case): request.Test {
  const client = testCase.persona === 'anonymous' ? request(ctx.app) : fixtures.users[testCase.persona].agent;
  let test = client[method](url);
  if (testCase.workspace !== undefined) test = test.set('x-workspace-id', testCase.workspace);
  const { mode, value, mutations } = testCase.body;
  switch (mode) {
    case 'none':
      return test;
    case 'jsonl': {
      const lines = [applyMutations(value, mutations), ...VALID_JSONL_LINES];
      return test.set('Content-Type', JSONL_MEDIA_TYPE).send(lines.map((line) => toJsonText(line)).join('\n'));
    }
    case 'malformed':
      return test.set('Content-Type', 'application/json').send('{"name": ');
    case 'text':
      return test.set('Content-Type', 'text/plain').send('name=x');
    case 'oversized':
      return test
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ blob: 'x'.repeat(JSON_BODY_MAX_BYTES) }));
    case 'json': {
      const body = applyMutations(value, mutations);
      return body === undefined ? test : test.set('Content-Type', 'application/json').send(toJsonText(body));
    }
  }
}

function checkAnswer(operation: Operation, response: request.Response): string | undefined {
  const { status } = response;
  if (status >= 500) return `a ${status}`;
  if (status < 200 || (status >= 300 && status < 400)) return `an unexpected ${status}`;
  if (!(String(status) in operation.responses)) return `an undocumented ${status}`;
  if (status < 400) return undefined;
  const fault = problemShapeFault(response, status);
  return fault === undefined ? undefined : `a ${status} that is not a problem (${fault})`;
}

/** Signs the persona in again when an operation (log out, sign up, sign in) ended or replaced its session. */
async function restoreSessions(): Promise<void> {
  for (const user of Object.values(fixtures.users)) {
    const me = await user.agent.get('/api/v1/auth/me');
    if (me.status === 200 && me.body.user.id === user.userId) continue;
    const login = await user.agent.post('/api/v1/auth/login').send({ email: user.email, password: user.password });
    if (login.status !== 200) throw new Error(`signing ${user.email} in again: ${login.status} ${login.text}`);
  }
}

describe(`every operation of the OpenAPI document, fuzzed (seed ${SEED}, ${RUNS} runs each)`, () => {
  it.each(operations.map((entry) => ({ ...entry, name: `${entry.method.toUpperCase()} ${entry.path}` })))(
    '$name answers 2xx or a documented 4xx problem, never 5xx',
    async ({ method, path, operation }) => {
      await restoreSessions();
      const property = fc.asyncProperty(caseArbitrary(path, operation), async (testCase) => {
        const url = urlOf(path, testCase);
        const response = await send(method, url, testCase);
        const wrong = checkAnswer(operation, response);
        if (wrong !== undefined) {
          throw new Error(
            `${method.toUpperCase()} ${url} as ${testCase.persona} got ${wrong}: ${response.text.slice(0, 300)}`,
          );
        }
      });
      try {
        await fc.assert(property, { seed: SEED, numRuns: RUNS, endOnFailure: true, includeErrorInReport: true });
      } catch (error) {
        throw new Error(`Replay with FUZZ_SEED=${SEED}. ${(error as Error).message}`);
      }
    },
  );
});
