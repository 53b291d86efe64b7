// An agent's Experiments: a member makes a dataset in the console, launches an experiment over two
// versions of a mock agent (the second redacts card numbers with a guardrail), watches it complete,
// reads the aggregates and the score charts, opens the comparison's diff of the item whose reply changed,
// and exports the results as CSV and JSON Lines.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { TAgent } from '@agentplane/contracts';
import { ManagerClient } from '@agentplane/manager-client';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Locator, Page } from 'playwright-core';
import { type Credentials, signInInConsole } from './console/account-flows.js';
import { arriveAt, control, field, inspect, navigateTo, openTab, shown } from './console/console-ui.js';
import { type ConsolePlatform, startConsolePlatform } from './testing/console-platform.js';

let platform: ConsolePlatform;

beforeAll(async () => {
  platform = await startConsolePlatform();
});

afterAll(async () => {
  await platform?.close();
});

const CARD = 'my card is 4111 1111 1111 1111';
const ITEMS = [
  { input: [{ role: 'user', content: CARD }], expected: { reply: `You said: ${CARD}` } },
  { input: [{ role: 'user', content: 'hello' }], expected: { reply: 'You said: hello' } },
];
const mockAgent = { name: 'Evaluated agent', framework: 'LLM', agent: { model: { provider: 'mock', name: 'echo' } } };
const redactCards = {
  name: 'Cards',
  guardrail: {
    rules: [{ name: 'cards', kind: 'pii', entities: ['payment_card'], position: 'output', action: 'redact' }],
  },
};

/** An agent at a first version (echoes), then a second (echoes with card numbers redacted). */
async function twoVersionAgent(api: ManagerClient): Promise<{ agent: TAgent; first: number; second: number }> {
  const guardrail = await api.expect<{ id: string }>(201, 'POST', '/guardrails/', redactCards);
  const agent = await api.expect<TAgent>(201, 'POST', '/agents/', mockAgent);
  const changed = await api.expect<TAgent>(200, 'PATCH', `/agents/${agent.id}`, {
    ...mockAgent,
    resources: { guardrail_ids: [guardrail.id] },
  });
  expect(changed.engine_config_version).toBeGreaterThan(agent.engine_config_version);
  return { agent: changed, first: agent.engine_config_version, second: changed.engine_config_version };
}

async function createDataset(page: Page) {
  await navigateTo(page, 'Datasets');
  await field(page, 'Name').fill('Echoes');
  await control(page, 'Create dataset').click();
  await arriveAt(page, 'Echoes');
  await field(page, 'JSONL file').setInputFiles({
    name: 'echoes.jsonl',
    mimeType: 'application/x-ndjson',
    buffer: Buffer.from(ITEMS.map((item) => JSON.stringify(item)).join('\n')),
  });
  await control(page, 'Import').click();
  await shown(
    page.getByRole('table', { name: 'Items of version 2' }).getByRole('cell', { name: 'hello', exact: true }),
    'the imported items',
  );
}

/** Saves what pressing `button` downloads, as text. */
async function download(page: Page, button: Locator): Promise<string> {
  const [saved] = await Promise.all([page.waitForEvent('download'), button.click()]);
  return readFile(await saved.path(), 'utf8');
}

describe("an agent's experiments", () => {
  it('launch over two versions, complete, compare item by item with a diff, and export', async () => {
    const user: Credentials = {
      email: `experiments-${randomUUID()}@example.test`,
      password: 'an experiments password',
    };
    const api = await ManagerClient.signUp(platform.consoleUrl, user);
    const { agent, first, second } = await twoVersionAgent(api);
    const { page } = await platform.newVisitor();
    await signInInConsole(page, platform.consoleUrl, user);
    await createDataset(page);

    await page.goto(`${platform.consoleUrl}/agents/${agent.id}/experiments`);
    await arriveAt(page, 'Evaluated agent');
    await openTab(page, 'Experiments');
    await shown(page.getByText('No experiments yet', { exact: true }), 'the empty list');
    await control(page, 'New experiment').click();
    const form = page.getByRole('form', { name: 'New experiment' });
    await shown(form.getByRole('checkbox', { name: `v${second} (current)` }), 'the versions to pick');
    await field(form, 'Name').fill('Card redaction');
    await field(form, 'Dataset').selectOption({ label: 'Echoes (2 items)' });
    await form.getByRole('checkbox', { name: `v${first}`, exact: true }).check();
    await form.getByRole('checkbox', { name: `v${second} (current)` }).check();
    await field(form, 'Scorers (JSON)').fill('[{"name": "exact", "kind": "exact_match"}]');
    // The scorers tried on the form's sample first: its reply is the expected one.
    await control(form, 'Test').click();
    const tested = form.getByRole('table', { name: 'Test results' });
    await shown(tested.getByRole('row').filter({ hasText: 'exact' }).getByText('1.00'), 'the test result');
    await inspect(page, 'the new experiment form', { screenshot: 'experiment-form' });
    await control(form, 'Launch experiment').click();

    await shown(page.getByRole('heading', { name: 'Card redaction' }), 'the experiment page');
    await shown(page.getByRole('definition').filter({ hasText: /^completed$/ }), 'the experiment completed');
    const scores = page.getByRole('table', { name: 'Scores per version' });
    const meanOf = (version: number) =>
      scores.getByRole('row').filter({ has: page.getByRole('rowheader', { name: `v${version}`, exact: true }) });
    await shown(meanOf(second).getByRole('cell', { name: '0.50', exact: true }), 'the second version’s mean');
    expect(await meanOf(first).getByRole('cell').nth(1).textContent()).toBe('1.00');
    await shown(page.getByRole('figure', { name: 'Scores of exact' }).locator('svg').first(), 'the exact histogram');

    const comparison = page.getByRole('region', { name: 'Comparison' });
    await shown(
      comparison.getByRole('status').getByText('0 improved, 1 regressed, 1 unchanged of 2 items; 1 replies changed.'),
      'the comparison counts',
    );
    await field(comparison, 'Show').selectOption('regressed');
    const items = comparison.getByRole('table', { name: `Items, v${second} against v${first}` });
    // The server filters: the page shown until its answer comes still holds the unchanged item.
    await items.getByRole('cell', { name: 'hello' }).waitFor({ state: 'detached' });
    await shown(items.getByRole('cell', { name: CARD }), 'the regressed item');
    await items.getByRole('button', { name: 'Show the replies of item 1' }).click();
    const diff = comparison.getByRole('figure', { name: `Reply of v${second} against v${first}` });
    await shown(diff.getByRole('deletion').filter({ hasText: '4111' }).first(), 'the removed card number');
    await shown(diff.getByRole('insertion').filter({ hasText: '[REDACTED:payment_card]' }), 'the redaction');
    await inspect(page, 'the experiment with its comparison', { screenshot: 'experiment-comparison' });
    // The unchanged item alone, then none that is unchanged with a changed reply, then the changed one.
    await field(comparison, 'Show').selectOption('unchanged');
    await items.getByRole('cell', { name: CARD }).waitFor({ state: 'detached' });
    await shown(items.getByRole('cell', { name: 'hello' }), 'the unchanged item');
    await comparison.getByRole('checkbox', { name: 'Only changed replies (1)' }).check();
    await shown(comparison.getByText('No item is unchanged with a changed reply.'), 'no item left');
    await field(comparison, 'Show').selectOption('all');
    await shown(items.getByRole('cell', { name: CARD }), 'the item whose reply changed');
    expect(await items.getByRole('cell', { name: 'hello' }).count()).toBe(0);

    const csv = (await download(page, control(page, 'Export as CSV'))).trim().split(/\r?\n/);
    expect(csv).toHaveLength(1 + ITEMS.length * 2);
    expect(csv[0]).toContain('exact');
    const jsonl = (await download(page, control(page, 'Export as JSONL'))).trim().split('\n');
    const results = jsonl.map((line) => JSON.parse(line) as { agent_version: number; scores: { score: number }[] });
    const score = (version: number) =>
      results.filter((result) => result.agent_version === version).map((result) => result.scores[0]?.score);
    expect(score(first)).toEqual([1, 1]);
    expect(score(second).sort()).toEqual([0, 1]);

    await openTab(page, 'Experiments');
    await shown(page.getByRole('table', { name: 'Experiments' }).getByText('completed'), 'the experiment listed');
  });
});
