// The integration form for every provider: each one created through its own fields, errors on the
// field they concern (the contract's rule in the browser, the server's refusal of a forged mask), an
// edit that leaves an untyped secret as it was, and the webhook URL an agent shows for each provider.
import { randomUUID } from 'node:crypto';
import type { TAgent, TIntegration } from '@agentplane/contracts';
import { ManagerClient } from '@agentplane/manager-client';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { type Credentials, signInInConsole, signUpInConsole } from './console/account-flows.js';
import { arriveAt, callApiFromPage, control, errorOf, field, navigateTo, shown } from './console/console-ui.js';
import { type ConsolePlatform, startConsolePlatform } from './testing/console-platform.js';

let platform: ConsolePlatform;

beforeAll(async () => {
  platform = await startConsolePlatform();
});

afterAll(async () => {
  await platform?.close();
});

const newUser = (): Credentials => ({
  email: `integrations-${randomUUID()}@example.test`,
  password: 'an integrations password',
});

const PRIVATE_KEY = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n';

/** Per provider: the option to pick, what to type in each labelled field, and the config that should be stored. */
const PROVIDERS = [
  {
    provider: 'WHATSAPP',
    slug: 'whatsapp',
    option: 'WhatsApp',
    fields: { 'Access token': 'EAAG-e2e-access-token', 'Phone number ID': '1065550100', 'Verify token': 'e2e-verify' },
    stored: {
      accessToken: 'EAAG-e2e-access-token',
      phoneNumberId: '1065550100',
      verifyToken: 'e2e-verify',
      apiVersion: 'v21.0',
    },
    summary: 'WhatsApp · 1065550100',
  },
  {
    provider: 'SLACK',
    slug: 'slack',
    option: 'Slack',
    fields: {
      'Bot token': 'xoxb-e2e-slack-bot-token',
      'Signing secret': 'e2e-slack-signing-secret',
      'App ID': 'A0123456789',
    },
    stored: { botToken: 'xoxb-e2e-slack-bot-token', signingSecret: 'e2e-slack-signing-secret', appId: 'A0123456789' },
    summary: 'Slack · A0123456789',
  },
  {
    provider: 'TELEGRAM',
    slug: 'telegram',
    option: 'Telegram',
    fields: { 'Bot token': '123456:ABC-e2e-telegram-token', 'Secret token': 'a-secret-token-of-32-characters_' },
    stored: { botToken: '123456:ABC-e2e-telegram-token', secretToken: 'a-secret-token-of-32-characters_' },
    summary: 'Telegram',
  },
  {
    provider: 'DISCORD',
    slug: 'discord',
    option: 'Discord',
    fields: {
      'Application ID': '123456789012345678',
      'Public key': 'ab'.repeat(32),
      'Bot token': 'e2e-discord-bot-token',
    },
    stored: { applicationId: '123456789012345678', publicKey: 'ab'.repeat(32), botToken: 'e2e-discord-bot-token' },
    summary: 'Discord · 123456789012345678',
  },
  {
    provider: 'TEAMS',
    slug: 'teams',
    option: 'Microsoft Teams',
    fields: {
      'Microsoft App ID': '0b3c5a9e-2f4d-4c1b-9a7e-3d2f1e0c9b8a',
      'App password': 'e2e-teams-app-password',
      'Tenant ID': '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d',
    },
    stored: {
      appId: '0b3c5a9e-2f4d-4c1b-9a7e-3d2f1e0c9b8a',
      appPassword: 'e2e-teams-app-password',
      tenantId: '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d',
    },
    summary: 'Microsoft Teams · 0b3c5a9e-2f4d-4c1b-9a7e-3d2f1e0c9b8a',
  },
  {
    provider: 'GOOGLE_CHAT',
    slug: 'google-chat',
    option: 'Google Chat',
    fields: {
      'Authentication audience': '123456789012',
      'Service account email': 'bot@project.iam.gserviceaccount.com',
      'Service account private key': PRIVATE_KEY,
    },
    stored: {
      audience: '123456789012',
      serviceAccountEmail: 'bot@project.iam.gserviceaccount.com',
      serviceAccountPrivateKey: PRIVATE_KEY,
    },
    summary: 'Google Chat · bot@project.iam.gserviceaccount.com',
  },
] as const;

async function openNewIntegration(page: Page, option: string) {
  await navigateTo(page, 'Integrations');
  await control(page, 'Create integration').click();
  await arriveAt(page, 'New integration');
  await field(page, 'Provider').selectOption({ label: option });
}

async function fillAll(page: Page, fields: Record<string, string>) {
  for (const [label, value] of Object.entries(fields)) await field(page, label).fill(value);
}

const rowOf = (page: Page, name: string) =>
  page
    .getByRole('main')
    .getByRole('row')
    .filter({ has: page.getByRole('link', { name, exact: true }) });

const integrationsOf = async (page: Page) =>
  (await callApiFromPage<TIntegration[]>(page, 'GET', '/integrations/')).body;

describe('the integration form, in a browser', () => {
  it('creates one integration of each provider through its own fields, and lists each by provider', async () => {
    const { page } = await platform.newVisitor();
    await signUpInConsole(page, platform.consoleUrl, newUser());
    for (const { option, fields, summary } of PROVIDERS) {
      await openNewIntegration(page, option);
      await field(page, 'Name').fill(`${option} line`);
      await fillAll(page, fields);
      await arriveAt(page, 'New integration', {
        screenshot: `integration-form-${option.toLowerCase().replace(' ', '-')}`,
      });
      await page.getByRole('button', { name: 'Create integration', exact: true }).click();
      await shown(
        rowOf(page, `${option} line`).getByText(summary, { exact: true }),
        `the ${option} row saying "${summary}"`,
      );
    }
    await arriveAt(page, 'Integrations', { screenshot: 'integrations-every-provider' });

    const stored = await integrationsOf(page);
    for (const { provider, option, stored: config } of PROVIDERS) {
      expect(stored.find((integration) => integration.name === `${option} line`)?.integration).toEqual({
        provider,
        enabled: true,
        config,
      });
    }
  });

  it('starts the config afresh when the provider changes', async () => {
    const { page } = await platform.newVisitor();
    await signUpInConsole(page, platform.consoleUrl, newUser());
    await openNewIntegration(page, 'Slack');
    await field(page, 'Bot token').fill('xoxb-typed-for-slack');
    await field(page, 'Provider').selectOption({ label: 'Telegram' });
    expect(await field(page, 'Bot token').inputValue()).toBe('');
    expect(await field(page, 'App ID').count()).toBe(0);
    await field(page, 'Name').fill('Switched line');
    await fillAll(page, { 'Bot token': '123:switched', 'Secret token': 'a-secret-token-of-32-characters_' });
    await page.getByRole('button', { name: 'Create integration', exact: true }).click();
    await shown(rowOf(page, 'Switched line'), 'the switched integration in the list');
    expect((await integrationsOf(page))[0]?.integration.config).toEqual({
      botToken: '123:switched',
      secretToken: 'a-secret-token-of-32-characters_',
    });
  });

  it('puts errors on the fields they concern: the contract’s rule, then the server’s refusal of a forged mask', async () => {
    const { page } = await platform.newVisitor();
    await signUpInConsole(page, platform.consoleUrl, newUser());
    await openNewIntegration(page, 'Discord');
    await field(page, 'Name').fill('Bad Discord');
    await fillAll(page, {
      'Application ID': '1234',
      'Public key': 'ab'.repeat(32),
      'Bot token': 'e2e-discord-bot-token',
    });
    const create = page.getByRole('button', { name: 'Create integration', exact: true });
    await create.click();
    expect(await errorOf(field(page, 'Application ID'))).toMatch(/^Must be a Discord application id \(digits\)/);
    expect(await field(page, 'Public key').getAttribute('aria-invalid')).toBeNull();

    // A mask stands for a stored secret; a new integration has none, which only the server knows.
    await field(page, 'Application ID').fill('123456789012345678');
    await field(page, 'Bot token').fill('••••••••');
    await create.click();
    expect(await errorOf(field(page, 'Bot token'))).toMatch(/masked value/);
    expect(await field(page, 'Application ID').getAttribute('aria-invalid')).toBeNull();
    await arriveAt(page, 'New integration', { screenshot: 'integration-form-errors' });
    expect(await integrationsOf(page)).toEqual([]);
  });

  it('keeps a secret nobody retyped when an integration is edited, and shows its mask on demand', async () => {
    const user = newUser();
    const api = await ManagerClient.signUp(platform.consoleUrl, user);
    const slack = PROVIDERS[1];
    const created = await api.expect<TIntegration>(201, 'POST', '/integrations/', {
      name: 'Slack line',
      integration: { provider: 'SLACK', config: slack.stored },
    });
    const { page } = await platform.newVisitor();
    await signInInConsole(page, platform.consoleUrl, user);
    await page.goto(`${platform.consoleUrl}/integrations/${created.id}`);
    await arriveAt(page, 'Slack line');
    const botToken = field(page, 'Bot token');
    expect(await botToken.getAttribute('type')).toBe('password');
    expect(await botToken.inputValue()).toBe('••••••••oken');
    await page.getByRole('button', { name: 'Show bot token', exact: true }).click();
    expect(await botToken.getAttribute('type')).toBe('text');

    await field(page, 'App ID').fill('A9876543210');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await shown(page.getByRole('status').filter({ hasText: 'Saved' }), '"Saved."');
    const stored = await api.expect<TIntegration>(200, 'GET', `/integrations/${created.id}`);
    expect(stored.integration.config).toEqual({ ...slack.stored, appId: 'A9876543210' });
  });

  it("shows on an agent's Connect tab the webhook URL of each of its integrations, to copy", async () => {
    const user = newUser();
    const api = await ManagerClient.signUp(platform.consoleUrl, user);
    const integrations: (TIntegration & { slug: string })[] = [];
    for (const { provider, slug, option, stored } of PROVIDERS) {
      const created = await api.expect<TIntegration>(201, 'POST', '/integrations/', {
        name: `${option} line`,
        integration: { provider, config: stored },
      });
      integrations.push({ ...created, slug });
    }
    const agent = await api.expect<TAgent>(201, 'POST', '/agents/', {
      name: 'Channelled agent',
      framework: 'LLM',
      agent: { model: { provider: 'mock', name: 'echo' } },
      resources: { integration_ids: integrations.map((integration) => integration.id) },
    });
    if (agent.engine_url === null) throw new Error('a pooled agent has an engine_url');
    const { context, page } = await platform.newVisitor();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: platform.consoleUrl });
    await signInInConsole(page, platform.consoleUrl, user);
    await page.goto(`${platform.consoleUrl}/agents/${agent.id}/connect`);
    await arriveAt(page, 'Channelled agent');
    const panel = page.getByRole('tabpanel', { name: 'Connect' });
    const webhooks = panel.getByRole('table', { name: 'Channel webhooks' });
    for (const integration of integrations) {
      // WhatsApp keeps its one route: Meta's deliveries name the phone number, which picks the integration.
      const url =
        integration.slug === 'whatsapp'
          ? `${agent.engine_url}/integrations/whatsapp/webhook`
          : `${agent.engine_url}/integrations/${integration.slug}/webhook/${integration.id}`;
      const row = webhooks
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${integration.name} `) }) });
      await shown(row.getByRole('cell').getByText(url, { exact: true }), `the webhook URL of ${integration.name}`);
      const what = `webhook URL of ${integration.name}`;
      await row.getByRole('button', { name: `Copy the ${what}`, exact: true }).click();
      await shown(row.getByRole('status').getByText(`Copied the ${what}.`, { exact: true }), `"${what}" copied`);
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
    }
    await arriveAt(page, 'Channelled agent', { screenshot: 'agent-channel-webhooks' });
  });
});
