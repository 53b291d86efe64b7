// Online scoring through the console: a member turns it on in the agent's Settings (every run, one
// contains scorer tried on a sample first), talks to the agent in the playground, and finds the run's
// score in the Runs tab and the scorer's mean in the Usage tab.
import { randomUUID } from 'node:crypto';
import type { TAgent, TAgentRun } from '@agentplane/contracts';
import { ManagerClient } from '@agentplane/manager-client';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Credentials, signInInConsole } from './console/account-flows.js';
import { arriveAt, control, field, inspect, openTab, shown } from './console/console-ui.js';
import { type ConsolePlatform, startConsolePlatform } from './testing/console-platform.js';

let platform: ConsolePlatform;

beforeAll(async () => {
  platform = await startConsolePlatform();
});

afterAll(async () => {
  await platform?.close();
});

const mockAgent = { name: 'Scored agent', framework: 'LLM', agent: { model: { provider: 'mock', name: 'echo' } } };
const SCORERS = '[{"name": "greets", "kind": "contains", "texts": ["hello"]}]';

describe('online scoring', () => {
  it('is set in Settings, and its scores show in the Runs and Usage tabs', async () => {
    const user: Credentials = { email: `online-${randomUUID()}@example.test`, password: 'an online scoring password' };
    const api = await ManagerClient.signUp(platform.consoleUrl, user);
    const agent = await api.expect<TAgent>(201, 'POST', '/agents/', mockAgent);
    const { page } = await platform.newVisitor();
    await signInInConsole(page, platform.consoleUrl, user);
    await page.goto(`${platform.consoleUrl}/agents/${agent.id}/settings`);
    await arriveAt(page, 'Scored agent');

    const form = page.getByRole('form', { name: 'Online scoring' });
    await form.getByRole('checkbox', { name: "Score a sample of this agent's runs" }).check();
    await field(form, 'Sample rate').fill('1');
    await field(form, 'Scorers (JSON)').fill(SCORERS);
    await field(form, 'Sample reply').fill('hello there');
    await control(form, 'Test').click();
    const tested = form.getByRole('table', { name: 'Test results' });
    await shown(tested.getByRole('cell', { name: '1.00', exact: true }), 'the test result');
    await control(form, 'Save online scoring').click();
    await shown(page.getByRole('status').getByText('Saved online scoring.'), 'the settings saved');
    await inspect(page, 'the online scoring settings', { screenshot: 'online-scoring' });
    const stored = await api.expect<{ enabled: boolean; sample_rate: number }>(
      200,
      'GET',
      `/agents/${agent.id}/online-scoring`,
    );
    expect(stored).toMatchObject({ enabled: true, sample_rate: 1 });

    await openTab(page, 'Playground');
    await field(page, 'Message').fill('hello');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await shown(page.getByRole('log', { name: 'Conversation' }).getByText('You said: hello'), 'the reply');
    await shown(page.getByRole('button', { name: 'Send', exact: true, disabled: false }), 'Send, enabled again');
    await waitUntil(
      async () => (await api.expect<TAgentRun[]>(200, 'GET', `/agents/${agent.id}/runs`))[0]?.scores.length === 1,
      { what: 'the run scored', timeoutMs: 60_000, intervalMs: 100 },
    );

    await openTab(page, 'Runs');
    const runs = page.getByRole('region', { name: 'Recent runs' });
    await shown(runs.getByRole('listitem').filter({ hasText: 'greets: 1.00' }), "the run's score");
    await openTab(page, 'Usage');
    const scores = page.getByRole('table', { name: 'Online scores' });
    const row = scores.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'greets' }) });
    await shown(row.getByRole('cell', { name: '1.00', exact: true }), "the scorer's mean");
    await inspect(page, 'the usage with online scores');
  });
});
