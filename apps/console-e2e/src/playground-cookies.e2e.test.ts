// An agent's engine_url is a tenant's to set, and an owner's browser sends the playground's requests
// there. Pointed back at the manager, with a query that swallows the appended /agent/run, Send once
// POSTed an admin-only route (now a platform operator's) with the owner's session cookie (it rotated another agent's database
// password). The manager now refuses such a URL; one stored before (written here straight into the
// database) reaches the manager without cookies, so signed out: no request the playground makes to its
// engine URL (the run, the thread list, opening a thread) carries the session cookie.
import { randomUUID } from 'node:crypto';
import { engineRoleName } from '@agentplane/db';
import { ManagerClient } from '@agentplane/manager-client';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Page, Request } from 'playwright-core';
import { type Credentials, signInInConsole } from './console/account-flows.js';
import { arriveAt, callApiFromPage, field } from './console/console-ui.js';
import { type ConsolePlatform, startConsolePlatform } from './testing/console-platform.js';

let platform: ConsolePlatform;

beforeAll(async () => {
  platform = await startConsolePlatform();
});

afterAll(async () => {
  await platform?.close();
});

// On engines of their own: a dedicated agent's engine_url is the tenant's to set (a pooled one's is its pool's).
const agentBody = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  framework: 'LLM',
  agent: { model: { provider: 'mock', name: 'echo' } },
  deployment: { mode: 'dedicated' },
  ...extra,
});

async function storedPasswordOf(agentId: string): Promise<string | null> {
  const [row] = await platform.database.prisma.$queryRaw<{ rolpassword: string | null }[]>`
    SELECT rolpassword FROM pg_authid WHERE rolname = ${engineRoleName(agentId)}`;
  if (!row) throw new Error(`agent ${agentId} has no engine role`);
  return row.rolpassword;
}

/** Stores an engine_url as a row from before the manager checked it would hold it. */
async function storeEngineUrl(agentId: string, engineUrl: string): Promise<void> {
  await platform.database.prisma.$executeRaw`UPDATE agents SET engine_url = ${engineUrl} WHERE id = ${agentId}::uuid`;
}

/**
 * Records the requests the page makes to URLs under `prefix` (an engine_url): then lists those the
 * browser sent with a Cookie header, and how many it made.
 */
function recordRequestsUnder(page: Page, prefix: string) {
  const made: Request[] = [];
  page.on('request', (request) => {
    if (request.url().startsWith(prefix)) made.push(request);
  });
  return {
    count: () => made.length,
    withCookies: async () => {
      const sent = await Promise.all(made.map(async (request) => ({ request, headers: await request.allHeaders() })));
      return sent
        .filter(({ headers }) => 'cookie' in headers)
        .map(({ request }) => `${request.method()} ${request.url()}`);
    },
  };
}

/** Presses Send in the agent's playground and resolves with the status the POST to `path` answered. */
async function sendAndAwaitPost(page: Page, path: string): Promise<number> {
  const posted = page.waitForResponse(
    (response) => response.request().method() === 'POST' && new URL(response.url()).pathname === path,
  );
  await field(page, 'Message').fill('Hello');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  return (await posted).status();
}

describe("an engine_url at the manager's own origin", () => {
  it('is refused by the manager, and one stored anyway reaches the manager without the session cookie', async () => {
    const owner: Credentials = { email: `owner-${randomUUID()}@example.test`, password: 'an owner password' };
    const api = await ManagerClient.signUp(platform.consoleUrl, owner);
    const victim = await api.expect<{ id: string }>(201, 'POST', '/agents/', agentBody('Victim agent'));
    const bait = await api.expect<{ id: string }>(201, 'POST', '/agents/', agentBody('Bait agent'));
    const credentialsRoute = `/api/v1/agents/${victim.id}/engine-credentials`;
    const attackUrl = `${platform.consoleUrl}${credentialsRoute}?x=`;

    const { page } = await platform.newVisitor();
    await signInInConsole(page, platform.consoleUrl, owner);
    // The manager refuses it: the query, and the manager's own origin even without one.
    for (const engineUrl of [attackUrl, `${platform.consoleUrl}/api/v1/auth`]) {
      const refused = await callApiFromPage<{ errors: { path: string }[] }>(page, 'POST', '/agents/', {
        body: agentBody('Another bait', { engine_url: engineUrl }),
      });
      expect(refused.status).toBe(422);
      expect(refused.body.errors.map((error) => error.path)).toEqual(['engine_url']);
    }

    await storeEngineUrl(bait.id, attackUrl);
    const passwordBefore = await storedPasswordOf(victim.id);
    const toEngineUrl = recordRequestsUnder(page, attackUrl);
    await page.goto(`${platform.consoleUrl}/agents/${bait.id}`);
    await arriveAt(page, 'Bait agent');
    // The request is made, as a browser makes it, and answered as to a stranger.
    expect(await sendAndAwaitPost(page, credentialsRoute)).toBe(401);
    expect(await storedPasswordOf(victim.id)).toBe(passwordBefore);
    // The thread list's read went there too (the playground lists threads as it opens), cookie-less.
    const threadReads = page.waitForRequest((request) => request.url().startsWith(`${attackUrl}/agent/threads`));
    await field(page, 'Search threads').fill('anything');
    await threadReads;
    expect(toEngineUrl.count()).toBeGreaterThanOrEqual(2);
    expect(await toEngineUrl.withCookies()).toEqual([]);
    // The console's own calls to the manager do carry it: the check above would see one.
    const own = page.waitForRequest((request) => new URL(request.url()).pathname === '/api/v1/auth/me');
    await page.reload();
    expect(await (await own).allHeaders()).toHaveProperty('cookie');
    await arriveAt(page, 'Bait agent');

    // Nor does it sign the owner out everywhere.
    const logoutAllUrl = `${platform.consoleUrl}/api/v1/auth/logout-all?x=`;
    await storeEngineUrl(bait.id, logoutAllUrl);
    const toLogoutAll = recordRequestsUnder(page, logoutAllUrl);
    await page.reload();
    await arriveAt(page, 'Bait agent');
    expect(await sendAndAwaitPost(page, '/api/v1/auth/logout-all')).toBe(401);
    expect(await toLogoutAll.withCookies()).toEqual([]);
    expect((await callApiFromPage(page, 'GET', '/auth/me')).status).toBe(200);
  });
});
