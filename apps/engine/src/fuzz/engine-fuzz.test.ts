// Every engine route, fuzzed as the manager's OpenAPI fuzz does it (with the same mutations): mostly
// valid requests, then what a hostile client sends: NUL, lone surrogates and __proto__ in strings and
// keys, huge and deeply nested values, malformed run and thread ids, bad cursors and Last-Event-IDs,
// bodies that are not JSON or not declared as JSON, with a valid token, a forged one or none. Each route
// is fuzzed at a dedicated engine's root and under /agents/{agentId} on a pool engine serving the same
// agent, where the agent segment is also fuzzed: unknown agents, ids that are not UUIDs, NUL and lone
// surrogates. Every answer must be below 500, and a 4xx must be problem+json; a request naming anything
// but the agent is a 4xx; afterwards both engines are healthy. The seed is fixed (FUZZ_SEED overrides
// it, FUZZ_RUNS the number of runs per route), so a failure replays exactly.
import { randomBytes, randomUUID } from 'node:crypto';
import { RUN_INPUT_MAX_BYTES_DEFAULT } from '@agentplane/contracts';
import { createTestDatabase, issueTestPoolCredentials, type TestDatabase } from '@agentplane/db/testing';
import {
  applyMutations,
  type Mutation,
  makeRunAgentInput,
  mutationArbitrary,
  toJsonText,
  waitUntil,
} from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { RunningEngine } from '../start-engine.js';
import { type FakeGraphApi, startFakeGraphApi } from '../testing/fake-graph-api.js';
import { engineGuardrail } from '../testing/guardrail-rules.js';
import { startTestIssuer, type TestIssuer } from '../testing/oidc-issuer.js';
import { startTestEngine } from '../testing/test-engine.js';
import {
  makeWebhookPayload,
  makeWhatsAppConfig,
  publishWhatsAppAgent,
  startWhatsAppEngine,
} from '../testing/whatsapp-agent.js';
import { signBody } from '../whatsapp/verify-webhook.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_201);
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);

type Method = 'GET' | 'POST' | 'DELETE';
type BodyKind = 'run-input' | 'delivery' | 'jsonrpc' | 'mcp' | 'none';
type Route = { method: Method; path: string; body: BodyKind; query?: string[]; lastEventId?: boolean };

// Every route the engine serves (app.ts); a route added there belongs here.
const ROUTES: Route[] = [
  { method: 'GET', path: '/', body: 'none' },
  { method: 'GET', path: '/health', body: 'none' },
  { method: 'GET', path: '/agent/capabilities', body: 'none' },
  { method: 'GET', path: '/agent/config', body: 'none' },
  { method: 'POST', path: '/agent/run', body: 'run-input' },
  { method: 'POST', path: '/agent/runs', body: 'run-input' },
  { method: 'GET', path: '/agent/runs/{runId}', body: 'none' },
  { method: 'GET', path: '/agent/runs/{runId}/stream', body: 'none', lastEventId: true },
  { method: 'GET', path: '/agent/runs/{runId}/events', body: 'none', query: ['after', 'limit'] },
  { method: 'POST', path: '/agent/runs/{runId}/cancel', body: 'none' },
  { method: 'GET', path: '/agent/threads', body: 'none', query: ['limit', 'cursor', 'q'] },
  { method: 'GET', path: '/agent/threads/{threadId}', body: 'none' },
  { method: 'GET', path: '/agent/threads/{threadId}/runs', body: 'none', query: ['limit', 'cursor'] },
  { method: 'DELETE', path: '/agent/threads/{threadId}', body: 'none' },
  { method: 'POST', path: '/mcp', body: 'mcp' },
  { method: 'GET', path: '/mcp', body: 'none' },
  { method: 'DELETE', path: '/mcp', body: 'none' },
  { method: 'GET', path: '/.well-known/oauth-protected-resource', body: 'none' },
  { method: 'GET', path: '/.well-known/oauth-protected-resource/mcp', body: 'none' },
  {
    method: 'GET',
    path: '/integrations/whatsapp/webhook',
    body: 'none',
    query: ['hub.mode', 'hub.verify_token', 'hub.challenge'],
  },
  { method: 'POST', path: '/integrations/whatsapp/webhook', body: 'delivery' },
  // The channels' one route, through the WhatsApp adapter (the integration id is the agent's own).
  { method: 'POST', path: '/integrations/whatsapp/webhook/{integrationId}', body: 'delivery' },
  { method: 'GET', path: '/.well-known/agent-card.json', body: 'none' },
  { method: 'POST', path: '/a2a', body: 'jsonrpc' },
];

let database: TestDatabase;
let issuer: TestIssuer;
let graph: FakeGraphApi;
let engine: RunningEngine;
let poolEngine: RunningEngine;
let token: string;
const whatsapp = makeWhatsAppConfig();
const FUZZ_GUARDRAIL = engineGuardrail(
  [
    {
      name: 'in-pii',
      kind: 'pii',
      position: 'input',
      action: 'redact',
      entities: ['email', 'payment_card', 'api_key'],
    },
    {
      name: 'in-regex',
      kind: 'pattern',
      position: 'input',
      action: 'log',
      phrases: ['ignore'],
      regexes: ['(a{1,10}){1,10}b'],
    },
    { name: 'in-injection', kind: 'prompt_injection', position: 'input', action: 'log' },
    {
      name: 'out-words',
      kind: 'pattern',
      position: 'output',
      action: 'redact',
      phrases: ['said'],
      regexes: ['\\d{3,12}'],
    },
    { name: 'out-pii', kind: 'pii', position: 'output', action: 'redact', entities: ['email', 'phone', 'iban'] },
    { name: 'out-length', kind: 'max_length', position: 'output', action: 'redact', max_chars: 2000 },
  ],
  'fuzzed',
);
// Ids that name something, so that requests get past the lookups: the agent, a finished run and its thread.
const known = {
  agentId: '',
  integrationId: '',
  runIds: [] as string[],
  threadIds: [] as string[],
  cursors: [] as string[],
};

/** Where a route is served: a dedicated engine at its root, or a pool engine under the agent's base path. */
type Target = { name: string; base: (agentSegment: string) => string; fuzzesAgent: boolean };
const TARGETS: Target[] = [
  { name: 'a dedicated engine', base: () => engine.url, fuzzesAgent: false },
  { name: 'a pool engine', base: (agentSegment) => `${poolEngine.url}/agents/${agentSegment}`, fuzzesAgent: true },
];

beforeAll(async () => {
  [database, issuer, graph] = await Promise.all([createTestDatabase(), startTestIssuer(), startFakeGraphApi()]);
  const agent = await publishWhatsAppAgent(database, whatsapp);
  // Fuzzed runs pass the guardrails of every position: hostile text must not make them fail either.
  await agent.publish({ ...agent.configWith(whatsapp), guardrails: [FUZZ_GUARDRAIL] });
  known.agentId = agent.agentId;
  known.integrationId = (agent.configWith(whatsapp).integrations[0] as { id: string }).id;
  const auth = { ENGINE_AUTH: 'oidc', ENGINE_OIDC_ISSUER: issuer.issuer, ENGINE_OIDC_AUDIENCE: issuer.audience };
  engine = await startWhatsAppEngine(database, agent, graph, auth);
  // The same agent placed on a pool as well: its dedicated engine's login still serves it too.
  const pool = await issueTestPoolCredentials(database, `t_${randomBytes(6).toString('hex')}`, [agent.agentId]);
  poolEngine = await startTestEngine({ ...pool, ...auth, GRAPH_API_BASE_URL: graph.baseUrl });
  token = await issuer.sign({ sub: 'fuzzer' });
  for (let round = 0; round < 2; round++) {
    const input = makeRunAgentInput('hello');
    const response = await fetch(`${engine.url}/agent/run`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
    });
    await response.text();
    known.runIds.push(input.runId);
    known.threadIds.push(input.threadId);
  }
  const page = await fetch(`${engine.url}/agent/threads?limit=1`, { headers: { Authorization: `Bearer ${token}` } });
  known.cursors.push(page.headers.get('x-next-cursor') ?? '');
});

afterAll(async () => {
  await Promise.all([engine?.shutdown(), poolEngine?.shutdown()]);
  await Promise.all([graph?.close(), issuer?.close()]);
  await database?.drop();
});

const cursorOf = (at: string, id: string) => Buffer.from(JSON.stringify([at, id])).toString('base64url');
const MALFORMED_IDS = ['%00', 'a%00b', '%ED%A0%80', '%C0%AF', '%ZZ', '%0A', '%E2%80%AE', '..', 'r'.repeat(600)];
// Agent segments that are not the agent: near misses of its id, NUL and a lone surrogate, and non-UUIDs
// (not '..', which the client resolves away, nor the id in upper case, which is the agent's).
const otherAgentSegments = () => [
  ...MALFORMED_IDS.filter((id) => id !== '..'),
  'not-a-uuid',
  `${known.agentId}%00`,
  `${known.agentId.slice(0, -1)}%ED%A0%80`,
  `${known.agentId}x`,
  encodeURIComponent(`${known.agentId}/`),
  '00000000-0000-0000-0000-000000000000',
];
const HOSTILE_QUERY_VALUES = ['', '-1', '0', '1e3', '99999999999999999999', '%00', 'a%00b', '%FF', '%ED%A0%80'];

function idArbitrary(ids: () => string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 0, max: 1 }).map((index) => encodeURIComponent(ids()[index] ?? 'x')) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: fc.constantFrom(...MALFORMED_IDS) },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent) },
  );
}

function cursorArbitrary(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constant(known.cursors[0] ?? ''),
    fc.constantFrom(
      cursorOf('-271821-04-20T00:00:00.000Z', 'a'),
      cursorOf('-004714-01-01T00:00:00.000Z', 'a'),
      cursorOf('2026-01-01T00:00:00.000Z', 'a\u0000b'),
      cursorOf('2026-01-01T00:00:00.000Z', '\ud800'),
      cursorOf('2026-01-01T00:00:00.000Z', 'r'.repeat(5000)),
      Buffer.from('{"a":1}').toString('base64url'),
      '!!!',
    ),
    fc.tuple(fc.date({ noInvalidDate: true }), fc.string()).map(([at, id]) => cursorOf(at.toISOString(), id)),
  );
}

function queryArbitrary(names: string[]): fc.Arbitrary<string> {
  const pairs = names.map((name) =>
    fc
      .oneof(
        { weight: 3, arbitrary: fc.constant(undefined) },
        {
          weight: 3,
          arbitrary:
            name === 'cursor'
              ? cursorArbitrary()
              : fc.oneof(fc.nat({ max: 200 }).map(String), fc.string().map(encodeURIComponent)),
        },
        { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_QUERY_VALUES) },
      )
      .map((value) => (value === undefined ? undefined : `${name}=${value}`)),
  );
  return fc.tuple(...pairs).map((parts) => parts.filter((part) => part !== undefined).join('&'));
}

function lastEventIdArbitrary(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    fc.constant(undefined),
    fc.integer({ min: 0, max: 20 }).map((seq) => `${known.runIds[0]}:${seq}`),
    fc.constantFrom('', 'x', ':', '::1', `${known.runIds[0]}:99999999999`, `${known.runIds[0]}:-1`, 'é'.repeat(3000)),
    fc.string({ unit: 'grapheme-ascii', maxLength: 60 }),
  );
}

/** A run input to mutate: new ids mostly, a known thread (to continue it) or run id (a 409) sometimes. */
function runInputArbitrary(): fc.Arbitrary<unknown> {
  return fc
    .record({
      content: fc.string({ maxLength: 50 }),
      threadId: fc.oneof(fc.uuid(), fc.constantFrom(...known.threadIds)),
      runId: fc.oneof({ weight: 5, arbitrary: fc.uuid() }, { weight: 1, arbitrary: fc.constantFrom(...known.runIds) }),
      agentplane: fc.constantFrom({}, { onDisconnect: 'continue' }, { multitaskStrategy: 'enqueue' }, { x: 1 }),
    })
    .map(({ content, threadId, runId, agentplane }) =>
      makeRunAgentInput(content, { threadId, runId, forwardedProps: { agentplane } }),
    );
}

/** An A2A JSON-RPC request: on known tasks and contexts mostly, of every method the endpoint serves. */
function jsonRpcArbitrary(): fc.Arbitrary<unknown> {
  const taskId = fc.oneof(fc.constantFrom(...known.runIds), fc.uuid());
  const message = fc
    .record({ text: fc.string({ maxLength: 50 }), contextId: fc.oneof(fc.constantFrom(...known.threadIds), fc.uuid()) })
    .map(({ text, contextId }) => ({ message: { messageId: 'm', role: 'ROLE_USER', contextId, parts: [{ text }] } }));
  const params = fc.oneof(
    message.map((p) => ['SendMessage', p] as const),
    message.map((p) => ['SendStreamingMessage', p] as const),
    taskId.map((id) => ['GetTask', { id, historyLength: 1 }] as const),
    taskId.map((id) => ['CancelTask', { id }] as const),
    taskId.map((id) => ['SubscribeToTask', { id }] as const),
    fc.nat({ max: 200 }).map((pageSize) => ['ListTasks', { pageSize, contextId: known.threadIds[0] }] as const),
  );
  return params.map(([method, p]) => ({ jsonrpc: '2.0', id: 1, method, params: p }));
}

/** An MCP client's message to mutate: a call of the agent's tool mostly, or what comes around it. */
function mcpMessageArbitrary(): fc.Arbitrary<unknown> {
  const rpc = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 1, method, params });
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .string({ maxLength: 50 })
        .map((message) => rpc('tools/call', { name: 'test_agent', arguments: { message } })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        rpc('initialize', {
          protocolVersion: '2025-03-26',
          capabilities: {},
          clientInfo: { name: 'fuzz', version: '0' },
        }),
        rpc('tools/list', {}),
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      ),
    },
  );
}

function deliveryArbitrary(): fc.Arbitrary<unknown> {
  return fc
    .record({ from: fc.string({ minLength: 1, maxLength: 15 }), text: fc.string({ maxLength: 50 }) })
    .map((message) => makeWebhookPayload(whatsapp.phoneNumberId, [message]));
}

/** Whether a path segment's percent-encoding is UTF-8 (an encoded lone surrogate is not). */
function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/** A body the route accepts, for requests that only the agent segment makes wrong. */
function validBody(route: Route): unknown {
  if (route.body === 'run-input') return makeRunAgentInput('hello');
  if (route.body === 'delivery') return makeWebhookPayload(whatsapp.phoneNumberId, [{ from: '15550001111' }]);
  if (route.body === 'jsonrpc') return { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} };
  if (route.body === 'mcp') return { jsonrpc: '2.0', id: 1, method: 'tools/list' };
  return undefined;
}

type BodyMode = 'json' | 'none' | 'malformed' | 'text' | 'utf16' | 'oversized';
type Credential = 'valid' | 'forged' | 'none';
type Case = {
  /** The agent segment of a pool engine's URL (encoded); unused at a dedicated engine's root. */
  agent: string;
  credential: Credential;
  ids: { runId: string; threadId: string };
  query: string;
  lastEventId: string | undefined;
  body: { mode: BodyMode; value: unknown; mutations: Mutation[]; signed: boolean };
};

function agentSegmentArbitrary(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(known.agentId) },
    // An unknown agent makes the pool look at its placements again (at most every 200 ms): few of them.
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: fc.constantFrom(...otherAgentSegments()) },
    {
      weight: 1,
      arbitrary: fc
        .string({ minLength: 1, maxLength: 40 })
        .map(encodeURIComponent)
        // The client resolves dot segments away: the request would not name an agent at all.
        .filter((segment) => segment !== '.' && segment !== '..'),
    },
  );
}

function caseArbitrary(route: Route, target: Target): fc.Arbitrary<Case> {
  const value =
    route.body === 'run-input'
      ? runInputArbitrary()
      : route.body === 'delivery'
        ? deliveryArbitrary()
        : route.body === 'jsonrpc'
          ? jsonRpcArbitrary()
          : route.body === 'mcp'
            ? mcpMessageArbitrary()
            : fc.jsonValue({ maxDepth: 2 });
  const hasBody = route.body !== 'none';
  return fc.record({
    agent: target.fuzzesAgent ? agentSegmentArbitrary() : fc.constant(''),
    credential: fc.oneof(
      { weight: 5, arbitrary: fc.constant<Credential>('valid') },
      { weight: 1, arbitrary: fc.constantFrom<Credential>('forged', 'none') },
    ),
    ids: fc.record({ runId: idArbitrary(() => known.runIds), threadId: idArbitrary(() => known.threadIds) }),
    query: queryArbitrary(route.query ?? []),
    lastEventId: route.lastEventId === true ? lastEventIdArbitrary() : fc.constant(undefined),
    body: fc.record({
      mode: fc.oneof(
        { weight: hasBody ? 50 : 5, arbitrary: fc.constant<BodyMode>('json') },
        { weight: hasBody ? 5 : 30, arbitrary: fc.constant<BodyMode>('none') },
        { weight: 6, arbitrary: fc.constantFrom<BodyMode>('malformed', 'text', 'utf16') },
        { weight: 1, arbitrary: fc.constant<BodyMode>('oversized') },
      ),
      value,
      mutations: fc.oneof(
        { weight: 1, arbitrary: fc.constant<Mutation[]>([]) },
        { weight: 3, arbitrary: fc.array(mutationArbitrary, { minLength: 1, maxLength: 1 }) },
        { weight: 1, arbitrary: fc.array(mutationArbitrary, { minLength: 2, maxLength: 2 }) },
      ),
      signed: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    }),
  });
}

function urlOf(target: Target, route: Route, testCase: Case): string {
  const path = route.path
    .replace('{runId}', testCase.ids.runId)
    .replace('{threadId}', testCase.ids.threadId)
    .replace('{integrationId}', known.integrationId);
  return `${target.base(testCase.agent)}${path}${testCase.query === '' ? '' : `?${testCase.query}`}`;
}

function bodyOf({ mode, value, mutations }: Case['body']): { type?: string; text?: string | Buffer } {
  switch (mode) {
    case 'none':
      return {};
    case 'malformed':
      return { type: 'application/json', text: '{"threadId": ' };
    case 'text':
      return { type: 'text/plain', text: 'runId=x' };
    case 'utf16':
      return { type: 'application/json; charset=utf-16', text: Buffer.from('{"a":1}', 'utf16le') };
    case 'oversized':
      return { type: 'application/json', text: JSON.stringify({ blob: 'x'.repeat(RUN_INPUT_MAX_BYTES_DEFAULT * 2) }) };
    case 'json': {
      const body = applyMutations(value, mutations);
      return body === undefined ? {} : { type: 'application/json', text: toJsonText(body) };
    }
  }
}

async function send(
  target: Target,
  route: Route,
  testCase: Case,
): Promise<{ status: number; type: string; text: string }> {
  const headers: Record<string, string> = {};
  if (testCase.credential === 'valid') headers.Authorization = `Bearer ${token}`;
  if (testCase.credential === 'forged') headers.Authorization = `Bearer ${token.slice(0, -4)}AAAA`;
  if (testCase.lastEventId !== undefined) headers['Last-Event-ID'] = testCase.lastEventId;
  // As an A2A 1.0 client does: without the version, every request would be refused the same way.
  if (route.body === 'jsonrpc') headers['A2A-Version'] = '1.0';
  // As an MCP client does: a POST to /mcp is answered as JSON or as a stream.
  if (route.body === 'mcp') headers.Accept = 'application/json, text/event-stream';
  const { type, text } = bodyOf(testCase.body);
  if (type !== undefined) headers['Content-Type'] = type;
  if (text !== undefined && route.body === 'delivery' && testCase.body.signed && whatsapp.appSecret !== undefined) {
    headers['X-Hub-Signature-256'] = signBody(text, whatsapp.appSecret);
  }
  const response = await fetch(urlOf(target, route, testCase), {
    method: route.method,
    headers,
    ...(text === undefined || route.method === 'GET' ? {} : { body: text }),
  });
  // Streams end once their run does; the mock model answers at once.
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
}

/** What is wrong with an answer, if anything. */
function wrongIn(answer: { status: number; type: string }, namesOtherAgent: boolean): string | undefined {
  if (answer.status >= 500) return `a ${answer.status}`;
  if (answer.status >= 400 && !answer.type.startsWith('application/problem+json')) {
    return `a ${answer.status} that is ${answer.type}, not problem+json`;
  }
  if (namesOtherAgent && answer.status < 400) return `a ${answer.status} for an agent that is not the one served`;
  return undefined;
}

// The pool's answer for an agent it does not serve (app.ts).
const NO_SUCH_AGENT = 'No such agent on this engine.';

const CASES = TARGETS.flatMap((target) =>
  ROUTES.map((route) => ({ target, route, name: `${route.method} ${route.path} on ${target.name}` })),
);

describe(`every engine route, fuzzed (seed ${SEED}, ${RUNS} runs each)`, () => {
  // Before the fuzz, which may delete the known threads and their runs.
  it.each(ROUTES.map((route) => ({ ...route, name: `${route.method} ${route.path}` })))(
    '$name on a pool engine is a 404 problem+json for any agent but the one served (400 undecodable), however valid the request',
    async (route) => {
      const [pool] = TARGETS.filter((target) => target.fuzzesAgent) as [Target];
      const valid: Case = {
        agent: '',
        credential: 'valid',
        ids: { runId: known.runIds[0] ?? '', threadId: known.threadIds[0] ?? '' },
        query: '',
        lastEventId: undefined,
        body: { mode: route.body === 'none' ? 'none' : 'json', value: validBody(route), mutations: [], signed: true },
      };
      for (const agent of [...otherAgentSegments(), randomUUID()]) {
        const answer = await send(pool, route, { ...valid, agent });
        expect({ agent, status: answer.status, type: answer.type }).toEqual({
          agent,
          status: decodes(agent) ? 404 : 400,
          type: expect.stringMatching(/^application\/problem\+json/),
        });
      }
      // The same request is one the agent itself takes in hand (whatever it answers); last, as it may
      // delete the thread.
      expect((await send(pool, route, { ...valid, agent: known.agentId })).text).not.toContain(NO_SUCH_AGENT);
    },
  );

  it.each(CASES)('$name answers below 500, and a 4xx is problem+json', async ({ target, route }) => {
    // A pool that served no agent would pass vacuously: some requests for the agent must reach it.
    let reachedAgent = 0;
    const property = fc.asyncProperty(caseArbitrary(route, target), async (testCase) => {
      const answer = await send(target, route, testCase);
      if (testCase.agent === known.agentId && !answer.text.includes(NO_SUCH_AGENT)) reachedAgent++;
      const wrong = wrongIn(answer, target.fuzzesAgent && testCase.agent !== known.agentId);
      if (wrong !== undefined) {
        throw new Error(`${route.method} ${urlOf(target, route, testCase)} got ${wrong}: ${answer.text.slice(0, 300)}`);
      }
    });
    try {
      await fc.assert(property, { seed: SEED, numRuns: RUNS, endOnFailure: true, includeErrorInReport: true });
    } catch (error) {
      throw new Error(`Replay with FUZZ_SEED=${SEED}. ${(error as Error).message}`);
    }
    if (target.fuzzesAgent) expect(reachedAgent).toBeGreaterThan(0);
  });

  it.each(TARGETS)('leaves $name healthy and able to run', async (target) => {
    const base = target.base(known.agentId);
    await waitUntil(async () => (await fetch(`${base}/health`)).status === 200, { what: 'a healthy agent' });
    const response = await fetch(`${base}/agent/run`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(makeRunAgentInput('still there?', { runId: randomUUID() })),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('RUN_FINISHED');
  });

  it("leaves the pool engine's own health ok", async () => {
    expect((await fetch(`${poolEngine.url}/health`)).status).toBe(200);
  });
});
