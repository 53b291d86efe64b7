// What the demo agent did, seen from the console: runs made in the playground show in the usage charts
// (agent and workspace), and a run opens, from the playground and from the runs table, as a timeline
// of its model calls and its tool call with arguments and result, read from the engine with the user's
// token. Axe on every page; the run view and the usage page are pictured for the docs.
import { randomUUID } from 'node:crypto';
import { ManagerClient } from '@agentplane/manager-client';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Locator, Page } from 'playwright-core';
import { signInInConsole } from './console/account-flows.js';
import { arriveAt, field, inspect, navigateTo, openTab, shown } from './console/console-ui.js';
import { addOnlyMember } from './platform/workspace-members.js';
import { type ConsolePlatform, startConsolePlatform } from './testing/console-platform.js';

let platform: ConsolePlatform;

beforeAll(async () => {
  platform = await startConsolePlatform();
});

afterAll(async () => {
  await platform?.close();
});

async function send(page: Page, message: string, reply: RegExp) {
  await field(page, 'Message').fill(message);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await shown(page.getByRole('log', { name: 'Conversation' }).getByText(reply).first(), `the reply ${reply}`);
  // The run is over once Send is pressable again; its link is drawn with that.
  await shown(page.getByRole('button', { name: 'Send', exact: true, disabled: false }), 'Send, enabled again');
}

/** The figures table under a usage panel, opened: one row per bucket with runs. */
async function usageRows(scope: Locator): Promise<string[][]> {
  const details = scope.getByRole('group').filter({ hasText: 'Figures per hour' }).first();
  await scope.getByText('Figures per hour', { exact: true }).click();
  const table = details.getByRole('table', { name: 'Usage per hour (UTC)' });
  await table.waitFor();
  return table
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => Array.from(row.querySelectorAll('th, td')).map((cell) => cell.textContent ?? '')),
    );
}

/** The heights of the bars a chart drew for one series (recharts names each bar's path after it). */
async function barHeights(chart: Locator): Promise<number[]> {
  await chart.locator('svg').first().waitFor();
  return chart
    .locator('svg path')
    .evaluateAll((paths) =>
      paths
        .filter((path) => path.getAttribute('name') === 'Runs')
        .map((path) => Number(path.getAttribute('height') ?? (path as SVGGraphicsElement).getBBox().height)),
    );
}

/** Makes `viewer` a viewer of the demo's workspace, and of no other. */
async function inviteViewer(viewer: { email: string; password: string }) {
  const demo = new ManagerClient(platform.consoleUrl);
  await demo.expect(200, 'POST', '/auth/login', { email: platform.demo.email, password: platform.demo.password });
  const me = await demo.expect<{ default_workspace_id: string }>(200, 'GET', '/auth/me');
  await addOnlyMember(demo, me.default_workspace_id, viewer, 'viewer');
}

describe('runs and usage in the console', () => {
  it('charts the runs made in the playground and opens a run as a timeline with its tool call', async () => {
    const { page } = await platform.newVisitor();
    await signInInConsole(page, platform.consoleUrl, platform.demo);
    await page.goto(`${platform.consoleUrl}/agents/${platform.demo.agentId}`);
    await arriveAt(page, 'Demo agent');

    await send(page, 'Hello, chart', /You said: Hello, chart/);
    await send(page, 'call echo {"message":"timeline ping"}', /The tool answered: .*timeline ping/);

    // From the playground: each run links to its view, under its last answer.
    const runLinks = page.getByRole('log', { name: 'Conversation' }).getByRole('link', { name: 'Run details' });
    expect(await runLinks.count()).toBe(2);
    const runPath = await runLinks.last().getAttribute('href');
    expect(runPath).toMatch(new RegExp(`^/agents/${platform.demo.agentId}/runs/[0-9a-f-]{36}$`));
    await runLinks.last().click();
    await arriveAt(page, /^Run [0-9a-f]{8}$/);
    // The run is a page under the Runs tab, which stays selected, below the agent's own title.
    await shown(page.getByRole('tab', { name: 'Runs', selected: true }), 'the Runs tab selected on the run');
    await shown(page.getByRole('heading', { level: 1, name: 'Demo agent' }), "the agent's title above the run");
    expect(await page.getByRole('heading', { level: 1 }).count()).toBe(1);
    const timeline = page.getByRole('list', { name: 'Timeline' });
    const toolCall = timeline.getByRole('article', { name: 'Tool call everything__echo' });
    await shown(toolCall, 'the tool call in the timeline');
    // Its arguments and its result, each as the engine stored them.
    const blocks = await toolCall.locator('pre').allInnerTexts();
    expect(blocks).toHaveLength(2);
    expect(JSON.parse(blocks[0] ?? '')).toEqual({ message: 'timeline ping' });
    expect(blocks[1]).toContain('timeline ping');
    // How long it took, from the times the engine stored its events.
    await shown(toolCall.getByText(/^Took about \d+ ms$/), "the tool call's duration");
    await shown(timeline.getByRole('article', { name: 'Model call 1' }), 'the model call that asked for the tool');
    await shown(
      timeline.getByRole('article', { name: 'Model call 2' }).getByText(/The tool answered: .*timeline ping/),
      'the model call that answered',
    );
    await shown(timeline.getByRole('article', { name: 'Run finished' }), 'the run end');
    await shown(page.getByRole('definition').filter({ hasText: /^succeeded$/ }), 'the status "succeeded"');
    await inspect(page, 'the run view', { screenshot: 'run-view' });

    // From the runs table: the newest run is that same one.
    await page.getByRole('link', { name: 'Back to runs' }).click();
    await page.waitForURL(`${platform.consoleUrl}/agents/${platform.demo.agentId}/runs`);
    await arriveAt(page, 'Recent runs');
    const runs = page.getByRole('region', { name: 'Recent runs' });
    const newest = runs.getByRole('row').nth(1).getByRole('link');
    await shown(newest, 'a link in the newest run row');
    expect(await newest.getAttribute('href')).toBe(runPath);
    expect(await runs.getByRole('row').count()).toBe(3);

    // From a thread opened again in a page loaded afresh, whose turns that page did not make: its runs, listed.
    await page.goto(`${platform.consoleUrl}/agents/${platform.demo.agentId}/playground`);
    await arriveAt(page, 'Demo agent');
    await page.getByRole('navigation', { name: 'Threads' }).getByRole('listitem').first().getByRole('button').click();
    await page.getByText('Runs of this thread (2)', { exact: true }).click();
    const threadRuns = page.getByRole('group').filter({ hasText: 'Runs of this thread' }).getByRole('link');
    await shown(threadRuns.first(), "the thread's runs");
    expect(await threadRuns.evaluateAll((links) => links.map((link) => link.getAttribute('href')))).toContain(runPath);
    await inspect(page, "the playground with the thread's runs");

    // The agent's usage, in its tab: both runs in this hour, in the table and as a bar of the chart.
    await openTab(page, 'Usage');
    const usage = page.getByRole('tabpanel', { name: 'Usage' }).getByRole('region', { name: 'Usage' });
    const chart = usage.getByRole('figure', { name: 'Runs and errors' });
    await shown(chart, 'the runs chart');
    expect((await barHeights(chart)).filter((height) => height > 0)).toHaveLength(1);
    const rows = await usageRows(usage);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.slice(1, 3)).toEqual(['2', '0']);
    await inspect(page, 'the agent page with its usage charts');

    // The workspace's usage, with the demo agent's share.
    await navigateTo(page, 'Usage');
    const workspace = page.getByRole('region', { name: 'Usage' });
    await shown(workspace.getByRole('figure', { name: 'Tokens' }).locator('svg').first(), 'the tokens chart');
    expect(
      (await barHeights(workspace.getByRole('figure', { name: 'Runs and errors' }))).filter((h) => h > 0),
    ).toHaveLength(1);
    const share = page
      .getByRole('region', { name: 'Per agent, last 24 hours' })
      .getByRole('row', { name: /Demo agent/ });
    expect(await share.getByRole('cell').first().textContent()).toBe('2');
    const workspaceRows = await usageRows(workspace);
    expect(workspaceRows[0]?.slice(1, 3)).toEqual(['2', '0']);
    await inspect(page, 'the workspace usage page', { screenshot: 'usage' });

    // Another member of the workspace sees the run in the runs table, but its content is the engine's to
    // show, and the engine shows a run to the user who made it only.
    const viewer = { email: `viewer-${randomUUID()}@example.test`, password: 'a viewer password' };
    await inviteViewer(viewer);
    const { page: viewerPage } = await platform.newVisitor();
    await signInInConsole(viewerPage, platform.consoleUrl, viewer);
    await viewerPage.goto(`${platform.consoleUrl}${runPath}`);
    await arriveAt(viewerPage, /^Run [0-9a-f]{8}$/);
    await shown(
      viewerPage.getByRole('alert').filter({ hasText: 'The engine cannot show this run: No run with this id.' }),
      "the engine's refusal",
    );
    expect(await viewerPage.getByRole('list', { name: 'Timeline' }).count()).toBe(0);
    expect(await viewerPage.getByText('timeline ping').count()).toBe(0);
  });
});
