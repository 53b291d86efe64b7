// The HTTP half of docker/smoke-test.sh, against the services running in the images (plain fetch, no
// workspace code, so it checks the images and nothing else):
//   end-to-end.mjs ready <manager url>               healthz and readyz answer 200
//   end-to-end.mjs pool-ready <engine url> <pool>    the pool engine's /health answers 200 for that pool
//   end-to-end.mjs provision <manager url> <dir>     sign-up, an agent (mock model), placed on the pool
//   end-to-end.mjs run <manager url> <dir>           at once, a manager-minted token streams a run from the
//                                                    agent's engine_url on the pool; none gets 401
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

// The manager's URL, or the engine's for pool-ready.
const [command, serviceUrl, ...rest] = process.argv.slice(2);
const api = `${serviceUrl}/api/v1`;

function fail(message) {
  throw new Error(message);
}

async function expectStatus(response, status, what) {
  if (response.status !== status) {
    // Only an error's body (problem+json) is shown: a success may carry credentials.
    const detail = response.status >= 400 ? ` ${await response.text()}` : '';
    fail(`${what}: expected ${status}, got ${response.status}${detail}`);
  }
  return response;
}

async function call(method, route, { cookie, body } = {}) {
  return fetch(`${api}${route}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(cookie ? { cookie } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
}

/** Retries until the service answers 200, or fails once `timeoutMs` has passed. */
async function waitForOk(url, what, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.status === 200) return;
      last = `${response.status} ${await response.text()}`;
    } catch (error) {
      last = error.cause?.code ?? error.message;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  fail(`${what} never answered 200 (last: ${last})`);
}

async function ready() {
  await waitForOk(`${api}/healthz`, 'manager healthz');
  await waitForOk(`${api}/readyz`, 'manager readyz');
  console.log('manager: healthz 200, readyz 200');
}

async function provision(dir) {
  const email = `smoke-${randomBytes(4).toString('hex')}@agentplane.local`;
  const signup = await expectStatus(
    await call('POST', '/auth/signup', { body: { email, password: randomBytes(16).toString('base64url') } }),
    201,
    'sign-up',
  );
  const cookie = signup.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  const agent = await (
    await expectStatus(
      await call('POST', '/agents/', {
        cookie,
        body: {
          name: 'Smoke agent',
          framework: 'LLM',
          agent: { model: { provider: 'mock', name: 'echo' } },
          resources: { integration_ids: [], mcp_server_ids: [], sso_id: null },
        },
      }),
      201,
      'create agent',
    )
  ).json();
  if (agent.deployment?.mode !== 'pool' || !agent.engine_url) {
    fail(`the agent was not placed on the operator's pool: ${JSON.stringify(agent.deployment)}`);
  }
  // This script's session and where the agent answers, for `run`.
  await writeFile(path.join(dir, 'agent_id'), agent.id);
  await writeFile(path.join(dir, 'engine_url'), agent.engine_url);
  await writeFile(path.join(dir, 'cookie'), cookie, { mode: 0o600 });
  console.log(`manager: signed up, agent ${agent.id} on pool "${agent.deployment.pool}" at ${agent.engine_url}`);
}

async function poolReady(engineUrl, pool) {
  await waitForOk(`${engineUrl}/health`, 'pool engine /health');
  const health = await (await fetch(`${engineUrl}/health`)).json();
  if (health.pool !== pool) fail(`the engine serves the pool "${health.pool}", not "${pool}"`);
  console.log(`engine: pool "${pool}" up, ${health.agents.placed} agent(s) placed`);
}

function runInput() {
  return {
    threadId: randomUUID(),
    runId: randomUUID(),
    messages: [{ id: randomUUID(), role: 'user', content: 'hello from the image smoke test' }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  };
}

async function run(dir) {
  const cookie = await readFile(path.join(dir, 'cookie'), 'utf8');
  const agentId = await readFile(path.join(dir, 'agent_id'), 'utf8');
  const engineUrl = await readFile(path.join(dir, 'engine_url'), 'utf8');
  // No wait and no other step: the pool serves the agent from its first request.
  const { access_token: token } = await (
    await expectStatus(await call('POST', `/agents/${agentId}/token`, { cookie }), 201, 'agent token')
  ).json();
  const post = (headers) =>
    fetch(`${engineUrl}/agent/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: JSON.stringify(runInput()),
    });

  const stream = await expectStatus(await post({ authorization: `Bearer ${token}` }), 200, 'streamed run');
  const types = (await stream.text())
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)).type);
  if (types[0] !== 'RUN_STARTED' || types.at(-1) !== 'RUN_FINISHED' || !types.includes('TEXT_MESSAGE_CONTENT')) {
    fail(`the run did not stream a reply: ${types.join(', ')}`);
  }
  console.log(`engine: the new agent streamed a run at once, ${types.length} events (${types[0]} … ${types.at(-1)})`);

  const refused = await expectStatus(await post({}), 401, 'a run without a token');
  if (!refused.headers.get('www-authenticate')?.startsWith('Bearer')) fail('401 without WWW-Authenticate: Bearer');
  console.log('engine: 401 without a token');
}

const commands = {
  ready: () => ready(),
  'pool-ready': () => poolReady(serviceUrl, rest[0]),
  provision: () => provision(rest[0]),
  run: () => run(rest[0]),
};

await (commands[command] ?? (() => fail(`unknown command ${command}`)))().catch((error) => {
  console.error(`smoke: ${error.message}`);
  process.exit(1);
});
