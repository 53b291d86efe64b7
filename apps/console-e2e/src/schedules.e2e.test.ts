// An agent's Schedules tab: a schedule made through its form (the server's cron verdict on the field),
// its next fire times in its own time zone and the viewer's, its switch and delete; a viewer reads only.
import { randomUUID } from 'node:crypto';
import type { TAgent, TSchedule } from '@agentplane/contracts';
import { ManagerClient } from '@agentplane/manager-client';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { type Credentials, signInInConsole } from './console/account-flows.js';
import { arriveAt, callApiFromPage, errorOf, field, inspect, shown } from './console/console-ui.js';
import { addOnlyMember } from './platform/workspace-members.js';
import { type ConsolePlatform, startConsolePlatform } from './testing/console-platform.js';

let platform: ConsolePlatform;

beforeAll(async () => {
  platform = await startConsolePlatform();
});

afterAll(async () => {
  await platform?.close();
});

const newUser = (): Credentials => ({ email: `cron-${randomUUID()}@example.test`, password: 'a schedules password' });
const mockAgent = { name: 'Timed agent', framework: 'LLM', agent: { model: { provider: 'mock', name: 'echo' } } };
const schedulesPanel = (page: Page) => page.getByRole('tabpanel', { name: 'Schedules' });

async function openSchedules(page: Page, agentId: string) {
  await page.goto(`${platform.consoleUrl}/agents/${agentId}/schedules`);
  await shown(schedulesPanel(page).getByRole('heading', { name: 'Schedules', exact: true }), 'the Schedules panel');
  await arriveAt(page, 'Timed agent');
}

describe("an agent's schedules", () => {
  it('are created through the form, show their next fire times in their zone and the viewer’s, switch off and go', async () => {
    const user = newUser();
    const api = await ManagerClient.signUp(platform.consoleUrl, user);
    const agent = await api.expect<TAgent>(201, 'POST', '/agents/', mockAgent);
    const { page } = await platform.newVisitor();
    await signInInConsole(page, platform.consoleUrl, user);
    await openSchedules(page, agent.id);
    const panel = schedulesPanel(page);
    await shown(panel.getByText('No schedules yet', { exact: true }), 'the empty list');

    await panel.getByRole('button', { name: 'New schedule', exact: true }).click();
    await field(panel, 'Name').fill('Morning digest');
    await field(panel, 'Cron').fill('0 8 30 2 *');
    await field(panel, 'Time zone').fill('Europe/Paris');
    await field(panel, 'Message').fill('Summarise the night');
    await field(panel, 'Thread').selectOption('fixed');
    const create = panel.getByRole('button', { name: 'Create schedule', exact: true });
    await create.click();
    // Five fields pass the form's own check; only the server's cron library knows 30 February never comes.
    expect(await errorOf(field(panel, 'Cron'))).toMatch(/no date that comes/);
    await inspect(page, 'the schedule form with the server’s error', { screenshot: 'schedule-form-error' });

    await field(panel, 'Cron').fill('0 8 * * *');
    await create.click();
    await shown(panel.getByRole('status').getByText('Saved schedule Morning digest.'), 'the schedule saved');
    const listed = await callApiFromPage<TSchedule[]>(page, 'GET', `/agents/${agent.id}/schedules`);
    const [schedule] = listed.body;
    expect(schedule).toMatchObject({ name: 'Morning digest', cron: '0 8 * * *', thread: 'fixed', enabled: true });
    expect(schedule?.next_fire_times).toHaveLength(5);

    // Each tick at 08:00 in Paris, and at its UTC time for this browser (the visitor's zone is UTC).
    const row = panel.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Morning digest' }) });
    const fires = row.getByRole('list', { name: 'Next fire times of Morning digest' }).getByRole('listitem');
    await shown(fires.first(), 'the next fire times');
    expect(await fires.count()).toBe(5);
    for (const [index, iso] of (schedule?.next_fire_times ?? []).entries()) {
      const tick = fires.nth(index).locator('time');
      expect(await tick.getAttribute('datetime')).toBe(iso);
      const text = (await tick.textContent()) ?? '';
      expect(text).toMatch(/08:00 (CET|CEST|GMT\+1|GMT\+2)/);
      expect(text).toContain(`your time: `);
      expect(text).toContain(`${new Date(iso).toISOString().slice(11, 16)} UTC`);
    }
    await inspect(page, 'the schedules list', { screenshot: 'schedules-list' });

    // Switched off (the box follows the server's answer): no next ticks, and the API agrees.
    const enabled = row.getByRole('checkbox', { name: 'Enabled: Morning digest' });
    await enabled.click();
    await shown(row.getByText('None while disabled'), 'no fire times while disabled');
    expect(await enabled.isChecked()).toBe(false);
    const stored = await callApiFromPage<TSchedule>(page, 'GET', `/agents/${agent.id}/schedules/${schedule?.id}`);
    expect(stored.body).toMatchObject({ enabled: false, next_fire_times: [], message: 'Summarise the night' });

    await row.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete', exact: true }).click();
    await shown(panel.getByText('No schedules yet', { exact: true }), 'the list empty again');
    expect((await callApiFromPage<TSchedule[]>(page, 'GET', `/agents/${agent.id}/schedules`)).body).toEqual([]);
  });

  it('are read, not changed, by a viewer', async () => {
    const ownerApi = await ManagerClient.signUp(platform.consoleUrl, newUser());
    const agent = await ownerApi.expect<TAgent>(201, 'POST', '/agents/', mockAgent);
    await ownerApi.expect(201, 'POST', `/agents/${agent.id}/schedules`, {
      name: 'Weekly report',
      cron: '0 9 * * 1',
      timezone: 'America/New_York',
      message: 'Report the week',
    });
    const viewer = newUser();
    await addOnlyMember(ownerApi, ownerApi.workspaceId, viewer, 'viewer');
    const { page } = await platform.newVisitor();
    await signInInConsole(page, platform.consoleUrl, viewer);
    await openSchedules(page, agent.id);
    const panel = schedulesPanel(page);

    const row = panel.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Weekly report' }) });
    await shown(row.getByRole('list', { name: 'Next fire times of Weekly report' }), 'the viewer’s fire times');
    expect(await row.getByRole('checkbox', { name: 'Enabled: Weekly report' }).isDisabled()).toBe(true);
    for (const name of ['New schedule', 'Edit Weekly report', 'Delete']) {
      expect(await panel.getByRole('button', { name, exact: true }).count()).toBe(0);
    }
  });
});
