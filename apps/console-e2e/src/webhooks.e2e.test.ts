// The Webhooks page: an admin subscribes a URL, sees its signing secret once (never again, on the
// endpoint's page or in the API), queues a test event and sees it in the delivery log; a member is not
// offered the page.
import { randomUUID } from 'node:crypto';
import type { TWebhookEndpoint } from '@agentplane/contracts';
import { ManagerClient } from '@agentplane/manager-client';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Credentials, signedInNavigation, signInInConsole, signUpInConsole } from './console/account-flows.js';
import { arriveAt, callApiFromPage, control, field, inspect, navigateTo, shown } from './console/console-ui.js';
import { addOnlyMember } from './platform/workspace-members.js';
import { type ConsolePlatform, startConsolePlatform } from './testing/console-platform.js';

let platform: ConsolePlatform;

beforeAll(async () => {
  platform = await startConsolePlatform();
});

afterAll(async () => {
  await platform?.close();
});

const newUser = (): Credentials => ({
  email: `webhooks-${randomUUID()}@example.test`,
  password: 'a webhooks password',
});

describe('the Webhooks page', () => {
  it('creates an endpoint and shows its secret once, then logs a test event', async () => {
    const { page } = await platform.newVisitor();
    await signUpInConsole(page, platform.consoleUrl, newUser());
    await navigateTo(page, 'Webhooks');
    await control(page, 'Create webhook endpoint').click();
    await arriveAt(page, 'New webhook endpoint');
    await field(page, 'URL').fill('https://hooks.example.test/agentplane');
    await field(page, 'Description').fill('Run alerts');
    await page.getByRole('checkbox', { name: /budget\.exceeded/ }).check();
    await page.getByRole('button', { name: 'Create webhook endpoint', exact: true }).click();

    const secretPanel = page.getByRole('region', { name: 'Signing secret' });
    await shown(secretPanel, 'the new signing secret');
    const secret = (await secretPanel.locator('code').textContent())?.trim() ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    await shown(control(secretPanel, 'Copy the signing secret'), 'a copy button for the secret');
    await arriveAt(page, 'New webhook endpoint', { screenshot: 'webhook-secret-once' });

    const [stored] = (await callApiFromPage<TWebhookEndpoint[]>(page, 'GET', '/webhooks')).body;
    expect(stored).toMatchObject({
      url: 'https://hooks.example.test/agentplane',
      description: 'Run alerts',
      event_types: ['run.succeeded', 'run.failed', 'budget.exceeded'],
      include_content: false,
      secret_hint: expect.stringContaining(secret.slice(-4)),
    });
    expect(JSON.stringify(stored)).not.toContain(secret);

    // The endpoint's own page masks it: the secret was shown once.
    await control(page, 'Open the endpoint').click();
    await arriveAt(page, 'Run alerts');
    expect(await page.getByText(secret).count()).toBe(0);

    await control(page, 'Send test event').click();
    await shown(
      page.getByRole('table', { name: 'Deliveries' }).getByText('webhook.test', { exact: true }),
      'the test event in the delivery log',
    );
    await inspect(page, 'the endpoint with its delivery log', { screenshot: 'webhook-endpoint' });
  });

  it('is not offered to a member, whom the API refuses too', async () => {
    const ownerApi = await ManagerClient.signUp(platform.consoleUrl);
    const member = newUser();
    await addOnlyMember(ownerApi, ownerApi.workspaceId, member, 'member');
    const { page } = await platform.newVisitor();
    await signInInConsole(page, platform.consoleUrl, member);
    await signedInNavigation(page).waitFor();
    expect(await page.getByRole('navigation').getByRole('link', { name: 'Webhooks', exact: true }).count()).toBe(0);
    expect((await callApiFromPage(page, 'GET', '/webhooks')).status).toBe(403);
  });
});
