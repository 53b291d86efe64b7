// An agent's page as tabs of their own URLs, the playground's thread list at 500 threads, how to reach
// the agent from outside, and what every empty list says instead of a header over nothing; axe on each
// page reached.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TAgent } from '@agentplane/contracts';
import { ManagerClient } from '@agentplane/manager-client';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { type Credentials, signInInConsole, signUpInConsole } from './console/account-flows.js';
import { arriveAt, callApiFromPage, control, field, navigateTo, openTab, shown } from './console/console-ui.js';
import { type ConsolePlatform, startConsolePlatform } from './testing/console-platform.js';

let platform: ConsolePlatform;

beforeAll(async () => {
  platform = await startConsolePlatform();
});

afterAll(async () => {
  await platform?.close();
});

const newUser = (): Credentials => ({ email: `tabs-${randomUUID()}@example.test`, password: 'a tabs test password' });
const mockAgent = (name: string) => ({ name, framework: 'LLM', agent: { model: { provider: 'mock', name: 'echo' } } });

/** A signed-up user with one mock-model agent (on the launcher's pool), signed in in a fresh browser. */
async function userWithAgent(name: string) {
  const user = newUser();
  const api = await ManagerClient.signUp(platform.consoleUrl, user);
  const agent = await api.expect<TAgent>(201, 'POST', '/agents/', mockAgent(name));
  const { context, page } = await platform.newVisitor();
  await signInInConsole(page, platform.consoleUrl, user);
  return { context, page, agent };
}

/** Sends a message in the playground and waits for the mock model's echo of it. */
async function say(page: Page, text: string) {
  await field(page, 'Message').fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await shown(page.getByRole('log', { name: 'Conversation' }).getByText(`You said: ${text}`), `the reply to "${text}"`);
}

const emptyState = (page: Page, title: string) => page.getByRole('main').getByText(title, { exact: true });

describe("an agent's page", () => {
  it('opens each tab at its own URL, the playground first, and moves between tabs with the keyboard', async () => {
    const { page, agent } = await userWithAgent('Tabbed agent');
    const base = `${platform.consoleUrl}/agents/${agent.id}`;
    // The agent's own URL is its playground, with no form above it.
    await page.goto(base);
    await page.waitForURL(`${base}/playground`);
    await arriveAt(page, 'Tabbed agent');
    await shown(page.getByRole('tab', { name: 'Playground', selected: true }), 'the Playground tab selected');
    expect(await page.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    await say(page, 'Hello tabs');
    await arriveAt(page, 'Tabbed agent', { screenshot: 'agent-tab-playground' });

    const panels = [
      { path: 'settings', tab: 'Settings', heading: 'Settings' },
      { path: 'runs', tab: 'Runs', heading: 'Recent runs' },
      { path: 'schedules', tab: 'Schedules', heading: 'Schedules' },
      { path: 'experiments', tab: 'Experiments', heading: 'Experiments' },
      { path: 'usage', tab: 'Usage', heading: 'Usage' },
      { path: 'history', tab: 'History', heading: 'History' },
      { path: 'connect', tab: 'Connect', heading: 'Connect' },
      { path: 'playground', tab: 'Playground', heading: 'Playground' },
    ];
    for (const panel of panels) {
      await page.goto(`${base}/${panel.path}`);
      await shown(page.getByRole('tab', { name: panel.tab, selected: true }), `the ${panel.tab} tab selected`);
      const tabPanel = page.getByRole('tabpanel', { name: panel.tab });
      await shown(tabPanel.getByRole('heading', { name: panel.heading, exact: true }), `the ${panel.tab} panel`);
      await arriveAt(page, 'Tabbed agent', { screenshot: `agent-tab-${panel.path}` });
    }
    // Arrow keys, Home and End move along the tab list, opening each tab's page; focus follows.
    await page.goto(`${base}/playground`);
    await page.getByRole('tab', { name: 'Playground' }).focus();
    for (const [key, path, tab] of [
      ['ArrowRight', 'settings', 'Settings'],
      ['End', 'connect', 'Connect'],
      ['ArrowRight', 'playground', 'Playground'],
      ['ArrowLeft', 'connect', 'Connect'],
      ['Home', 'playground', 'Playground'],
    ] as const) {
      await page.keyboard.press(key);
      await page.waitForURL(`${base}/${path}`);
      await shown(page.getByRole('tab', { name: tab, selected: true }), `the ${tab} tab selected after ${key}`);
      expect(await page.getByRole('tab', { name: tab }).evaluate((element) => element === document.activeElement)).toBe(
        true,
      );
    }
    // One tab in the tab order: the selected one.
    const tabIndexes = await page
      .getByRole('tab')
      .evaluateAll((tabs) => tabs.map((tab) => tab.getAttribute('tabindex')));
    expect(tabIndexes).toEqual(['0', ...panels.slice(1).map(() => '-1')]);
  });

  it('lists the versions in History, shows what changed, and rolls back to an old one', async () => {
    const user = newUser();
    const api = await ManagerClient.signUp(platform.consoleUrl, user);
    const agent = await api.expect<TAgent>(201, 'POST', '/agents/', mockAgent('Versioned agent'));
    await api.expect(200, 'PATCH', `/agents/${agent.id}`, {
      ...mockAgent('Versioned agent'),
      agent: { model: { provider: 'mock', name: 'echo' }, instructions: 'A bad prompt.' },
      version_message: 'try a prompt',
    });
    const { page } = await platform.newVisitor();
    await signInInConsole(page, platform.consoleUrl, user);
    await page.goto(`${platform.consoleUrl}/agents/${agent.id}/history`);
    const panel = page.getByRole('tabpanel', { name: 'History' });
    await shown(panel.getByRole('cell', { name: 'try a prompt', exact: true }), 'the message of version 2');
    await arriveAt(page, 'Versioned agent', { screenshot: 'agent-tab-history' });

    await panel.getByRole('row', { name: /^v2/ }).getByRole('button', { name: 'Changes' }).click();
    await shown(panel.getByText('/spec/agent/instructions', { exact: true }), 'the changed instructions in the diff');

    await panel.getByRole('row', { name: /^v1/ }).getByRole('button', { name: 'Roll back…' }).click();
    await field(page, 'Why (optional)').fill('the prompt was worse');
    await panel.getByRole('button', { name: 'Roll back to v1' }).click();
    await shown(panel.getByRole('cell', { name: 'rollback to v1', exact: true }), 'the rollback as version 3');
    await shown(panel.getByRole('cell', { name: 'v3 (current)', exact: true }), 'version 3 current');
  });

  it('shows where to reach the agent over AG-UI, MCP and A2A, with a token route and snippets to copy', async () => {
    const { context, page, agent } = await userWithAgent('Reachable agent');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: platform.consoleUrl });
    const { endpoints } = agent;
    if (endpoints === null) throw new Error('a pooled agent has endpoints');
    expect(endpoints.mcp).toBe(`${agent.engine_url}/mcp`);

    await page.goto(`${platform.consoleUrl}/agents/${agent.id}/connect`);
    await arriveAt(page, 'Reachable agent', { screenshot: 'agent-tab-connect' });
    const panel = page.getByRole('tabpanel', { name: 'Connect' });
    const copied = async (what: string) => {
      await panel.getByRole('button', { name: `Copy the ${what}`, exact: true }).click();
      await shown(panel.getByRole('status').getByText(`Copied the ${what}.`, { exact: true }), `"${what}" copied`);
      return page.evaluate(() => navigator.clipboard.readText());
    };
    for (const [label, what, url] of [
      ['AG-UI', 'AG-UI endpoint', endpoints.ag_ui],
      ['MCP', 'MCP endpoint', endpoints.mcp],
      ['A2A', 'A2A endpoint', endpoints.a2a],
      ['A2A agent card', 'agent card URL', endpoints.agent_card],
    ] as const) {
      const row = panel.getByRole('row').filter({ has: page.getByRole('rowheader', { name: label, exact: true }) });
      await shown(row.getByRole('cell').getByText(url, { exact: true }), `the ${what} in the ${label} row`);
      expect(await copied(what)).toBe(url);
    }

    expect(await copied('token command')).toBe(
      `curl -b jar -X POST '${new URL(platform.consoleUrl).origin}/api/v1/agents/${agent.id}/token'`,
    );
    expect(JSON.parse(await copied('MCP client config'))).toEqual({
      mcpServers: { reachable_agent: { url: endpoints.mcp, headers: { Authorization: 'Bearer <token>' } } },
    });
    const a2a = await copied('A2A command');
    expect(a2a).toContain("-H 'A2A-Version: 1.0'");
    expect(a2a.trim().endsWith(`'${endpoints.a2a}'`)).toBe(true);
    const body = JSON.parse(/-d '(.*)' \\/.exec(a2a)?.[1] ?? 'null');
    expect(body).toMatchObject({ method: 'SendMessage', params: { message: { role: 'ROLE_USER' } } });
  });

  it("quotes a dedicated agent's engine_url in the commands it offers, whatever its path holds", async () => {
    const { context, page, agent } = await userWithAgent('Quoted agent');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: platform.consoleUrl });
    // A URL's path may hold what a shell would run: an admin's typo, or a trap for a colleague who pastes.
    const space = '$' + '{IFS}';
    const engineUrl = `http://127.0.0.1:9/it's/$(touch${space}a)\`touch${space}b\`;touch${space}c`;
    const moved = await callApiFromPage<TAgent>(page, 'PATCH', `/agents/${agent.id}`, {
      body: { ...mockAgent('Quoted agent'), deployment: { mode: 'dedicated' }, engine_url: engineUrl },
    });
    expect(moved.status).toBe(200);
    const a2aUrl = moved.body.endpoints?.a2a;
    expect(a2aUrl).toBe(`${engineUrl}/a2a`);

    await page.goto(`${platform.consoleUrl}/agents/${agent.id}/connect`);
    await arriveAt(page, 'Quoted agent');
    const panel = page.getByRole('tabpanel', { name: 'Connect' });
    await panel.getByRole('button', { name: 'Copy the A2A command', exact: true }).click();
    await shown(panel.getByRole('status').getByText('Copied the A2A command.', { exact: true }), 'the command copied');
    const command = await page.evaluate(() => navigator.clipboard.readText());
    // Pasted into a shell whose curl prints its arguments: the URL is one of them, unchanged, and nothing ran.
    const cwd = mkdtempSync(path.join(tmpdir(), 'pasted-'));
    try {
      const printed = execFileSync('sh', ['-c', `curl() { printf '%s\\n' "$@"; }\n${command}`], {
        cwd,
        encoding: 'utf8',
      });
      expect(printed.trimEnd().split('\n').at(-1)).toBe(a2aUrl);
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('lists 500 threads a page at a time, newest first, titled by their first message and found by title', async () => {
    const { page, agent } = await userWithAgent('Chatty agent');
    const threadLists: URL[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.endsWith('/agent/threads') && request.method() === 'GET') threadLists.push(url);
    });
    await page.goto(`${platform.consoleUrl}/agents/${agent.id}/playground`);
    await arriveAt(page, 'Chatty agent');
    // One thread made by talking, which tells the thread rows' owner (the token's issuer and subject).
    await say(page, 'Topic 0001');
    await seedThreads(agent.id, 500);

    await page.reload();
    await arriveAt(page, 'Chatty agent');
    const threads = page.getByRole('navigation', { name: 'Threads' });
    const items = threads.getByRole('listitem');
    const pages = threads.getByRole('navigation', { name: 'Thread pages' });
    await shown(pages.getByText('1–20 of 500', { exact: true }), 'the first page of 500 threads');
    expect(await items.count()).toBe(20);
    await shown(items.first().getByRole('button', { name: /^Topic 0500\b/ }), 'the newest thread first');
    await arriveAt(page, 'Chatty agent', { screenshot: 'playground-threads' });

    await pages.getByRole('button', { name: 'Next page' }).click();
    await shown(pages.getByText('21–40 of 500', { exact: true }), 'the second page');
    await shown(items.first().getByRole('button', { name: /^Topic 0480\b/ }), 'the second page’s newest thread');
    await pages.getByRole('button', { name: 'Previous page' }).click();
    await shown(items.first().getByRole('button', { name: /^Topic 0500\b/ }), 'the first page again');

    // Search by title, case-insensitively; the match opens with its messages.
    await field(page, 'Search threads').fill('topic 0123');
    await shown(pages.getByText('1–1 of 1', { exact: true }), 'one thread found');
    await threads.getByRole('button', { name: /^Topic 0123\b/ }).click();
    await shown(page.getByRole('log', { name: 'Conversation' }).getByText('Topic 0123'), 'the thread’s message');
    await field(page, 'Search threads').fill('no such topic');
    await shown(emptyState(page, 'No thread matches'), 'the empty search');
    await arriveAt(page, 'Chatty agent');

    // No read asked for all 500.
    expect(threadLists.length).toBeGreaterThan(0);
    for (const list of threadLists) expect(Number(list.searchParams.get('limit'))).toBe(20);
  });
});

/**
 * Stores threads 0002…`count` of the caller of the agent's one thread, in one statement: a thread each,
 * its first message "Topic <n>", the newest the highest n. The talked-to thread becomes the oldest.
 */
async function seedThreads(agentId: string, count: number) {
  const prisma = platform.database.prisma;
  const seeded = await prisma.$executeRaw`
    WITH owner AS (
      SELECT agent_id, external_key, issuer, subject FROM conversation_threads
      WHERE agent_id = ${agentId}::uuid AND thread_id IS NOT NULL),
    made AS (
      INSERT INTO conversation_threads (agent_id, external_key, thread_id, issuer, subject, last_seq, created_at, updated_at)
      SELECT owner.agent_id, regexp_replace(owner.external_key, '[^:]*$', 'seed-' || n), 'seed-' || n,
        owner.issuer, owner.subject, 1, at, at
      FROM owner, generate_series(2, ${count}::int) AS n,
        LATERAL (SELECT timestamptz '2026-01-01' + n * interval '1 minute' AS at) stamp
      RETURNING id, agent_id, thread_id)
    INSERT INTO conversation_messages (thread_id, agent_id, seq, message)
    SELECT id, agent_id, 1, jsonb_build_object(
      'id', gen_random_uuid()::text, 'role', 'user', 'content', 'Topic ' || lpad(substr(thread_id, 6), 4, '0'))
    FROM made`;
  expect(seeded).toBe(count - 1);
  await prisma.$executeRaw`
    UPDATE conversation_threads SET updated_at = timestamptz '2025-12-31'
    WHERE agent_id = ${agentId}::uuid AND thread_id NOT LIKE 'seed-%'`;
}

describe('empty lists', () => {
  it('say what to do next, on every list a new workspace has', async () => {
    const { page } = await platform.newVisitor();
    await signUpInConsole(page, platform.consoleUrl, newUser());

    await navigateTo(page, 'Agents', { screenshot: 'empty-agents' });
    await shown(emptyState(page, 'No agents yet'), '"No agents yet"');
    for (const [list, title, create] of [
      ['MCP servers', 'No MCP servers yet', 'Create your first MCP server'],
      ['Integrations', 'No integrations yet', 'Create your first integration'],
      ['SSO configs', 'No SSO configs yet', 'Create your first SSO config'],
      ['Observability', 'No observability configs yet', 'Create your first observability config'],
    ] as const) {
      await navigateTo(page, list);
      await shown(emptyState(page, title), `"${title}"`);
      await shown(control(page.getByRole('main'), create), `"${create}"`);
      expect(await page.getByRole('main').getByRole('table').count()).toBe(0);
    }
    await navigateTo(page, 'Members');
    await shown(emptyState(page, 'No open invitations'), '"No open invitations"');
    await navigateTo(page, 'Usage');
    await shown(emptyState(page, 'No usage yet'), 'the workspace\'s "No usage yet"');
    await shown(control(page.getByRole('main'), 'agents'), 'the way to the agents list');

    // The agents list's next step leads to the form.
    await navigateTo(page, 'Agents');
    await control(page.getByRole('main'), 'Create your first agent').click();
    await arriveAt(page, 'New agent');
    await shown(
      page.getByText(/None in this workspace yet/).first(),
      "the form's note that no MCP server or integration exists yet",
    );

    // A new agent: no threads, runs or usage yet, each saying how to get some.
    const created = await callApiFromPage<{ id: string }>(page, 'POST', '/agents/', { body: mockAgent('Quiet agent') });
    expect(created.status).toBe(201);
    await page.goto(`${platform.consoleUrl}/agents/${created.body.id}`);
    await arriveAt(page, 'Quiet agent');
    await shown(emptyState(page, 'No threads yet'), '"No threads yet"');
    await openTab(page, 'Runs');
    await shown(emptyState(page, 'No runs yet'), '"No runs yet"');
    await openTab(page, 'Usage');
    await shown(emptyState(page, 'No usage yet'), '"No usage yet"');
    expect(await page.getByRole('main').getByText('None', { exact: true }).count()).toBe(0);
  });
});
