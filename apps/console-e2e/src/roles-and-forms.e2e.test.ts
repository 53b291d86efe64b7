// What the console must hold besides the journey: the demo sign-in at the URL `pnpm start` prints first,
// errors on the fields they name, a viewer's read-only forms (and the API's refusal behind them), and a
// sign-out that ends the session on the server.
import { randomUUID } from 'node:crypto';
import { ManagerClient } from '@agentplane/manager-client';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Locator } from 'playwright-core';
import { type Credentials, signInInConsole, signUpInConsole } from './console/account-flows.js';
import { arriveAt, callApiFromPage, control, errorOf, field, inspect, navigateTo } from './console/console-ui.js';
import { addOnlyMember } from './platform/workspace-members.js';
import { type ConsolePlatform, startConsolePlatform } from './testing/console-platform.js';

let platform: ConsolePlatform;

beforeAll(async () => {
  platform = await startConsolePlatform();
});

afterAll(async () => {
  await platform?.close();
});

const newUser = (): Credentials => ({ email: `user-${randomUUID()}@example.test`, password: 'a test user password' });

/** A button a viewer cannot press: not shown, or disabled. */
async function expectCannotPress(button: Locator) {
  if ((await button.count()) === 0) return;
  expect(await button.isDisabled()).toBe(true);
}

/** A field a viewer can read and not change. */
async function expectReadOnly(input: Locator) {
  await input.waitFor();
  expect(await input.isEditable()).toBe(false);
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
    await arriveAt(page, 'New MCP server');
    await field(page, 'Server name').fill('shell');
    await field(page, 'Transport').selectOption('stdio');
    await field(page, 'Command').fill('/bin/sh');
    const create = page.getByRole('button', { name: 'Create MCP server', exact: true });
    await create.click();
    // The contracts' rule, checked in the browser before any request: a name is required.
    expect(await errorOf(field(page, 'Name'))).not.toBe('');

    // Only the server knows which command lines the operator permits: its 422 names the field.
    await field(page, 'Name').fill('A shell');
    await create.click();
    expect(await errorOf(field(page, 'Command'))).toMatch(/MCP_STDIO_COMMANDS/);
    expect(await field(page, 'Name').getAttribute('aria-invalid')).toBeNull();
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
    await addOnlyMember(ownerApi, ownerApi.workspaceId, viewer, 'viewer');

    const { page } = await platform.newVisitor();
    await signInInConsole(page, platform.consoleUrl, viewer);
    await navigateTo(page, 'Integrations');
    await expectCannotPress(control(page, 'Create integration'));
    await page.getByRole('main').getByRole('link', { name: 'Owner line', exact: true }).click();
    await arriveAt(page, 'Owner line', { screenshot: 'integration-as-viewer' });
    await expectReadOnly(field(page, 'Name'));
    await expectReadOnly(field(page, 'Access token'));
    await expectCannotPress(page.getByRole('button', { name: 'Save', exact: true }));
    await expectCannotPress(page.getByRole('button', { name: 'Delete', exact: true }));
    await expectCannotPress(page.getByRole('button', { name: 'Reveal secrets', exact: true }));
    // Secrets reach a viewer masked, never as they are.
    expect(await field(page, 'Access token').inputValue()).toMatch(/^•{8}/);

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
    await arriveAt(page, 'Agents');
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
