// The console's whole journey in a real headless Chromium, against the platform as `pnpm start` starts
// it: sign up, configure an MCP server and an integration, build an agent on them, chat with it at once
// through the pool that serves it, change what it uses, and tear it all down, with axe on every page.
import { randomUUID } from 'node:crypto';
import { ManagerClient } from '@agentplane/manager-client';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Locator, Page, Response, Route } from 'playwright-core';
import { saveScreenshot } from './checks/screenshots.js';
import { signUpInConsole } from './console/account-flows.js';
import {
  arriveAt,
  callApiFromPage,
  control,
  deleteAndConfirm,
  field,
  inspect,
  navigateTo,
  openTab,
  shown,
} from './console/console-ui.js';
import { type ConsolePlatform, startConsolePlatform } from './testing/console-platform.js';

type McpServer = { id: string; name: string; mcp_server: { command: string; args: string[] } };
type Agent = { id: string; name: string; engine_url: string; deployment: object };

let platform: ConsolePlatform;

beforeAll(async () => {
  platform = await startConsolePlatform();
});

afterAll(async () => {
  await platform?.close();
});

/** The bundled MCP server's command line, as the demo agent's MCP server entry holds it. */
async function bundledServerCommandLine(): Promise<{ command: string; args: string[] }> {
  const demo = new ManagerClient(platform.consoleUrl);
  await demo.expect(200, 'POST', '/auth/login', { email: platform.demo.email, password: platform.demo.password });
  const [server] = await demo.expect<McpServer[]>(200, 'GET', '/mcp-servers/');
  if (!server) throw new Error('the demo has no MCP server');
  return { command: server.mcp_server.command, args: server.mcp_server.args };
}

function rowOf(page: Page, name: string) {
  return page.getByRole('row').filter({ hasText: name }).first();
}

/** The agent count a resource's row shows, as a cell of its own. */
async function waitForAgentCount(page: Page, resourcePage: string, name: string, count: number) {
  await navigateTo(page, resourcePage);
  // Its own text, whatever label the cell gives assistive technology ("Used by 1 agents").
  await rowOf(page, name)
    .getByRole('cell')
    .filter({ hasText: new RegExp(`^${count}$`) })
    .waitFor();
}

/** Opens an item from its list page: an agent from Agents, a resource from its kind's page. */
async function openResource(page: Page, listPage: string, name: string) {
  await navigateTo(page, listPage);
  await page.getByRole('main').getByRole('link', { name, exact: true }).click();
  await arriveAt(page, name);
}

const openAgent = (page: Page, name: string) => openResource(page, 'Agents', name);

/**
 * Holds the page's reads of `path` in the network until release(), so that what the page draws before
 * the server answers can be checked: the cached data, or its loading state.
 */
async function holdReads(page: Page, path: string) {
  const held: Route[] = [];
  let released = false;
  let noteHeld = () => {};
  const firstHeld = new Promise<void>((resolve) => (noteHeld = resolve));
  const matches = (url: URL) => url.pathname === path;
  await page.route(matches, async (route) => {
    if (released || route.request().method() !== 'GET') return route.continue();
    held.push(route);
    noteHeld();
  });
  return {
    firstHeld,
    release: async () => {
      released = true;
      await Promise.all(held.splice(0).map((route) => route.continue()));
      await page.unroute(matches);
    },
  };
}

/**
 * Goes to a page by `go` with the reads of `path` held: whatever it draws meanwhile is the cache's, and
 * must be the loading state, never `stale`. Then lets the reads through.
 */
async function expectNoCachedDraw(page: Page, path: string, go: () => Promise<void>, stale: Locator) {
  const reads = await holdReads(page, path);
  await go();
  await reads.firstHeld;
  const loading = page.getByRole('main').getByText('Loading…', { exact: true });
  await loading.or(stale).first().waitFor();
  expect(await stale.allInnerTexts()).toEqual([]);
  expect(await loading.isVisible()).toBe(true);
  await reads.release();
}

describe('the console, in a browser', () => {
  it('takes a new user from sign-up to a conversation with their agent, then through changing and removing it', async () => {
    const commandLine = await bundledServerCommandLine();
    const { page } = await platform.newVisitor();
    await signUpInConsole(page, platform.consoleUrl, {
      email: `journey-${randomUUID()}@example.test`,
      password: 'a journey password',
      name: 'Journey',
    });

    // An MCP server: the bundled one, on the command line the operator permits.
    await navigateTo(page, 'MCP servers');
    await control(page, 'Create MCP server').click();
    await arriveAt(page, 'New MCP server');
    await field(page, 'Name').fill('Everything');
    await field(page, 'Server name').fill('everything');
    await field(page, 'Transport').selectOption('stdio');
    await field(page, 'Command').fill(commandLine.command);
    await field(page, 'Arguments').fill(commandLine.args.join('\n'));
    await inspect(page, 'the MCP server form', { screenshot: 'mcp-server-form' });
    await page.getByRole('button', { name: 'Create MCP server', exact: true }).click();
    await waitForAgentCount(page, 'MCP servers', 'Everything', 0);

    // An integration.
    await navigateTo(page, 'Integrations');
    await control(page, 'Create integration').click();
    await arriveAt(page, 'New integration');
    await field(page, 'Name').fill('Support line');
    await field(page, 'Access token').fill('EAAG-journey-token');
    await field(page, 'Phone number ID').fill('1065550123');
    await field(page, 'Verify token').fill('journey-verify');
    await field(page, 'App secret').fill('journey-app-secret');
    await page.getByRole('button', { name: 'Create integration', exact: true }).click();
    await waitForAgentCount(page, 'Integrations', 'Support line', 0);

    // An agent using both, on the deterministic mock model.
    await navigateTo(page, 'Agents');
    await control(page, 'Create agent').click();
    await arriveAt(page, 'New agent');
    await field(page, 'Name').fill('Journey agent');
    await field(page, 'Framework').selectOption('LLM');
    await field(page, 'Model provider').selectOption('mock');
    await field(page, 'Model name').fill('echo');
    await page.getByRole('checkbox', { name: 'Everything', exact: true }).check();
    await page.getByRole('checkbox', { name: 'Support line', exact: true }).check();
    await inspect(page, 'the agent form', { screenshot: 'agent-form' });
    await page.getByRole('button', { name: 'Create agent', exact: true }).click();
    await arriveAt(page, 'Journey agent');
    await shown(page.getByText('Config version 1', { exact: true }), '"Config version 1"');

    // It answers at once, on the page the create led to: `pnpm start` places new agents on its pool, and
    // nobody deploys an engine.
    const agents = await callApiFromPage<Agent[]>(page, 'GET', '/agents/');
    const agent = agents.body.find((candidate) => candidate.name === 'Journey agent');
    if (!agent) throw new Error('the agent the console created is not in the API');
    expect(agent.deployment).toEqual({ mode: 'pool', pool: platform.pool });
    const engineUrl = agent.engine_url;
    // Its /health beside it: the pool serves the agent's config.
    await shown(page.getByRole('main').getByText('ok', { exact: true }), 'the engine status "ok"');

    // The playground: a streamed reply, then a tool call with its arguments and its result.
    const conversation = page.getByRole('log', { name: 'Conversation' });
    const runs: Response[] = [];
    page.on('response', (response) => {
      if (response.url().startsWith(`${engineUrl}/agent/run`)) runs.push(response);
    });
    await field(page, 'Message').fill('Hello from the browser');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await shown(conversation.getByText('You said: Hello from the browser'), 'the streamed reply');
    expect(runs[0]?.headers()['content-type']).toContain('text/event-stream');

    await field(page, 'Message').fill('call echo {"message":"ping from the console"}');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const toolCall = conversation.getByRole('article').filter({ hasText: 'everything__echo' }).first();
    await toolCall
      .getByText(/ping from the console/)
      .first()
      .waitFor();
    await shown(conversation.getByText(/The tool answered: .*ping from the console/), 'the reply to the tool result');
    await arriveAt(page, 'Journey agent', { screenshot: 'agent-playground' });

    await waitForAgentCount(page, 'MCP servers', 'Everything', 1);
    await saveScreenshot(page, 'mcp-servers');
    await waitForAgentCount(page, 'Integrations', 'Support line', 1);
    await saveScreenshot(page, 'integrations');

    // Editing the MCP server republishes the agent's config: its version moves.
    await openResource(page, 'MCP servers', 'Everything');
    await field(page, 'Timeout seconds').fill('45');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await shown(page.getByRole('status').filter({ hasText: 'Saved' }), '"Saved."');
    await openAgent(page, 'Journey agent');
    await shown(page.getByText('Config version 2', { exact: true }), '"Config version 2"');

    // Still in use: the console says which agent holds it.
    await openResource(page, 'MCP servers', 'Everything');
    await deleteAndConfirm(page, page.getByRole('alert').filter({ hasText: 'Journey agent' }));
    await inspect(page, 'the refused delete', { screenshot: 'mcp-server-in-use' });

    // Deleted in order: the agent (from its settings), then what it used.
    await openAgent(page, 'Journey agent');
    await openTab(page, 'Settings');
    await deleteAndConfirm(page, page.getByRole('heading', { name: 'Agents', exact: true }));
    await page
      .getByRole('main')
      .getByRole('link', { name: 'Journey agent', exact: true })
      .waitFor({ state: 'detached' });
    for (const [resourcePage, name] of [
      ['MCP servers', 'Everything'],
      ['Integrations', 'Support line'],
    ] as const) {
      await openResource(page, resourcePage, name);
      await deleteAndConfirm(page, page.getByRole('heading', { name: resourcePage, exact: true }));
      await rowOf(page, name).waitFor({ state: 'detached' });
    }
    const left = await callApiFromPage<unknown[]>(page, 'GET', '/mcp-servers/');
    expect(left.body).toEqual([]);
  });

  it("shows a resource's new agent count after an agent using it is created or deleted, never the count cached before", async () => {
    const { page } = await platform.newVisitor();
    await signUpInConsole(page, platform.consoleUrl, {
      email: `counts-${randomUUID()}@example.test`,
      password: 'a counting password',
    });
    const server = await callApiFromPage(page, 'POST', '/mcp-servers/', {
      body: {
        name: 'Counted',
        mcp_server: { name: 'counted', transport: 'stdio', ...(await bundledServerCommandLine()) },
      },
    });
    expect(server.status).toBe(201);
    const serverPath = `/api/v1/mcp-servers/${(server.body as { id: string }).id}`;
    // The list and the server's own page drawn, and so cached, while no agent uses the server.
    await waitForAgentCount(page, 'MCP servers', 'Counted', 0);
    const openCounted = () => page.getByRole('main').getByRole('link', { name: 'Counted', exact: true }).click();
    await openCounted();
    await shown(page.getByText('Used by 0 agents', { exact: true }), '"Used by 0 agents"');

    await navigateTo(page, 'Agents');
    await control(page, 'Create agent').click();
    await arriveAt(page, 'New agent');
    await field(page, 'Name').fill('Counting agent');
    await field(page, 'Framework').selectOption('LLM');
    await field(page, 'Model provider').selectOption('mock');
    await field(page, 'Model name').fill('echo');
    await page.getByRole('checkbox', { name: 'Counted', exact: true }).check();
    await page.getByRole('button', { name: 'Create agent', exact: true }).click();
    await arriveAt(page, 'Counting agent');

    // Back to the list and the page in the page (no reload), each with its read held: they are loading,
    // where cached ones would show the count of 0.
    const counted = rowOf(page, 'Counted');
    await expectNoCachedDraw(page, '/api/v1/mcp-servers/', () => navigateTo(page, 'MCP servers'), counted);
    await waitForAgentCount(page, 'MCP servers', 'Counted', 1);
    await expectNoCachedDraw(page, serverPath, openCounted, page.getByText('Used by 0 agents', { exact: true }));
    await shown(page.getByText('Used by 1 agent', { exact: true }), '"Used by 1 agent"');

    // Deleting the agent brings the counts back down, the same way.
    await openAgent(page, 'Counting agent');
    await openTab(page, 'Settings');
    await deleteAndConfirm(page, page.getByRole('heading', { name: 'Agents', exact: true }));
    await expectNoCachedDraw(page, '/api/v1/mcp-servers/', () => navigateTo(page, 'MCP servers'), counted);
    await waitForAgentCount(page, 'MCP servers', 'Counted', 0);
    await expectNoCachedDraw(page, serverPath, openCounted, page.getByText('Used by 1 agent', { exact: true }));
    await shown(page.getByText('Used by 0 agents', { exact: true }), '"Used by 0 agents"');
  });
});
