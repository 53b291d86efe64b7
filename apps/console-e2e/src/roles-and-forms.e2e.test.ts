// What the console must hold besides the journey: the demo sign-in at the URL `pnpm start` prints first,
// errors on the fields they name, a viewer's read-only forms (and the API's refusal behind them), and a
// sign-out that ends the session on the server.
import { randomUUID } from 'node:crypto';
import { ManagerClient } from '@agentplane/manager-client';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Locator } from 'playwright-core';
import { type Credentials, signInInConsole, signUpInConsole } from './console/account-flows.js';
import { arriveAt, callApiFromPage, control, errorOf, field, inspect, navigateTo } from './console/console-ui.js';
import { type ConsolePlatform, startConsolePlatform } from './testing/console-platform.js';

let platform: ConsolePlatform;

beforeAll(async () => {
  platform = await startConsolePlatform();
});

afterAll(async () => {
  await platform?.close();
});

const newUser = (): Credentials => ({ email: `user-${randomUUID()}@example.test`, password: 'a test user password' });

/** Hidden, or shown but not usable: either way a viewer cannot press or type into it. */
async function expectNotUsable(control: Locator) {
  if ((await control.count()) === 0) return;
  expect(await control.isEditable().catch(() => false)).toBe(false);
}

describe('the console, in a browser', () => {
  it('opens at the URL pnpm start prints first, where the demo sign-in works', async () => {
    expect(platform.output()).toMatch(/Agentplane is running\.\s+\S[^\n]*http:\/\/localhost:\d+\/ /);
    const { page } = await platform.newVisitor();
    await signInInConsole(page, platform.consoleUrl, platform.demo);
    await navigateTo(page, 'Agents');
    await page.getByRole('main').getByRole('link', { name: 'Demo agent', exact: true }).click();
    await arriveAt(page, 'Demo agent', { screenshot: 'agent' });
    await page
      .getByText(/Config version \d+/)
      .first()
      .waitFor();
  });

  it('puts errors on the fields they concern: the form’s own rules, then the server’s', async () => {
    const { page } = await platform.newVisitor();
    await signUpInConsole(page, platform.consoleUrl, newUser());
    await navigateTo(page, 'MCP servers');
    await control(page, 'Create MCP server').click();
    await field(page, 'Transport').selectOption('stdio');
    await field(page, 'Command').fill('/bin/sh');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    // The contracts' rule, checked in the browser: a name is required.
    expect(await errorOf(field(page, 'Name'))).not.toBe('');

    // Only the server knows which command lines the operator permits: its 422 names the field.
    await field(page, 'Name').fill('A shell');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    expect(await errorOf(field(page, 'Command'))).toMatch(/command|permit|allow/i);
    await inspect(page, 'the MCP server form with errors', { screenshot: 'validation-errors' });
    expect((await callApiFromPage<unknown[]>(page, 'GET', '/mcp-servers/')).body).toEqual([]);
  });

  it('gives a viewer read-only forms, and the API refuses what the viewer tries anyway', async () => {
    const ownerApi = await ManagerClient.signUp(platform.consoleUrl);
    const integration = await ownerApi.expect<{ id: string }>(201, 'POST', '/integrations/', {
      name: 'Owner line',
      integration: {
        provider: 'WHATSAPP',
        config: {
          accessToken: 'EAAG-owner-secret-token',
          phoneNumberId: '1065550777',
          verifyToken: 'verify',
          appSecret: 'owner-app-secret',
        },
      },
    });
    // A viewer of the owner's workspace only: invited, accepted, their own personal workspace removed.
    const viewer = newUser();
    const { token } = await ownerApi.expect<{ token: string }>(
      201,
      'POST',
      `/workspaces/${ownerApi.workspaceId}/members`,
      {
        email: viewer.email,
        role: 'viewer',
      },
    );
    const viewerApi = await ManagerClient.signUp(platform.consoleUrl, viewer);
    await viewerApi.expect(200, 'POST', `/invitations/${token}/accept`);
    await viewerApi.expect(204, 'DELETE', `/workspaces/${viewerApi.workspaceId}`);

    const { page } = await platform.newVisitor();
    await signInInConsole(page, platform.consoleUrl, viewer);
    await navigateTo(page, 'Integrations');
    await expectNotUsable(control(page, 'Create integration'));
    await page.getByRole('main').getByRole('link', { name: 'Owner line', exact: true }).click();
    await arriveAt(page, 'Owner line', { screenshot: 'integration-as-viewer' });
    await expectNotUsable(field(page, 'Name'));
    await expectNotUsable(field(page, 'Access token'));
    await expectNotUsable(page.getByRole('button', { name: 'Save', exact: true }));
    await expectNotUsable(page.getByRole('button', { name: 'Delete', exact: true }));
    expect(await page.content()).not.toContain('EAAG-owner-secret-token');

    // The controls are the console's courtesy; the API is the rule.
    const patch = await callApiFromPage(page, 'PATCH', `/integrations/${integration.id}`, {
      body: {
        name: 'Viewer was here',
        integration: { provider: 'WHATSAPP', config: { accessToken: 'x', phoneNumberId: '1', verifyToken: 'v' } },
      },
    });
    expect(patch.status).toBe(403);
    expect((await callApiFromPage(page, 'DELETE', `/integrations/${integration.id}`)).status).toBe(403);
    const stored = await ownerApi.expect<{ name: string }>(200, 'GET', `/integrations/${integration.id}`);
    expect(stored.name).toBe('Owner line');
  });

  it('ends the session on sign-out: the console asks to sign in again, and the old cookie gets a 401', async () => {
    const { context, page } = await platform.newVisitor();
    await signUpInConsole(page, platform.consoleUrl, newUser());
    await arriveAt(page, /.+/, { screenshot: 'home' });
    const cookie = (await context.cookies()).map(({ name, value }) => `${name}=${value}`).join('; ');
    expect((await fetch(`${platform.consoleUrl}/api/v1/auth/me`, { headers: { cookie } })).status).toBe(200);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await arriveAt(page, 'Sign in');
    expect((await callApiFromPage(page, 'GET', '/auth/me')).status).toBe(401);
    // Not just a cookie the browser forgot: the server ended the session.
    expect((await fetch(`${platform.consoleUrl}/api/v1/auth/me`, { headers: { cookie } })).status).toBe(401);
    await page.goto(`${platform.consoleUrl}/agents`);
    await arriveAt(page, 'Sign in');
  });
});
