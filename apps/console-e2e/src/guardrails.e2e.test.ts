// Guardrails through the console: a guardrail of two rules made in its rules editor (a regex the
// contracts refuse shown on its line), picked in the agent form, applied to a reply in the playground and
// shown in the runs list, refused deletion while an agent uses it, and picked as one of the workspace's
// defaults.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { signUpInConsole } from './console/account-flows.js';
import {
  arriveAt,
  callApiFromPage,
  control,
  deleteAndConfirm,
  errorOf,
  field,
  inspect,
  navigateTo,
  openTab,
  shown,
} from './console/console-ui.js';
import { type ConsolePlatform, startConsolePlatform } from './testing/console-platform.js';

let platform: ConsolePlatform;

beforeAll(async () => {
  platform = await startConsolePlatform();
});

afterAll(async () => {
  await platform?.close();
});

type Guardrail = { id: string; name: string; agent_count: number; guardrail: { rules: Record<string, unknown>[] } };
type Agent = { id: string; name: string; resources: { guardrail_ids: string[] } };

const rule = (page: Page, number: number) => page.getByRole('group', { name: `Rule ${number}`, exact: true });

async function signUp(page: Page) {
  await signUpInConsole(page, platform.consoleUrl, {
    email: `guardrails-${randomUUID()}@example.test`,
    password: 'a test user password',
  });
}

/** Makes the guardrail "Customer data" through its form: a pattern rule and a PII rule, on the output. */
async function createGuardrail(page: Page): Promise<Guardrail> {
  await navigateTo(page, 'Guardrails');
  await control(page, 'Create guardrail').click();
  await arriveAt(page, 'New guardrail');
  await field(page, 'Name').fill('Customer data');
  await field(rule(page, 1), 'Rule name').fill('topics');
  await field(rule(page, 1), 'Phrases').fill('insider tip');
  // Unbounded: the streamed reply could not be held back by its longest match.
  await field(rule(page, 1), 'Regular expressions').fill('account-\\d{4}\nsecret-\\d+');
  await page.getByRole('button', { name: 'Add rule', exact: true }).click();
  await field(rule(page, 2), 'Rule name').fill('cards');
  await field(rule(page, 2), 'Kind').selectOption('pii');
  await rule(page, 2).getByRole('checkbox', { name: 'Payment card (Luhn-checked)', exact: true }).check();
  await field(rule(page, 2), 'Action').selectOption('redact');
  const create = page.getByRole('button', { name: 'Create guardrail', exact: true });
  await create.click();

  const regexes = field(rule(page, 1), 'Regular expressions');
  expect(await errorOf(regexes)).toMatch(/^Line 2: .*unbounded/);
  await inspect(page, 'the guardrail form with a refused regex', { screenshot: 'guardrail-form' });
  expect((await callApiFromPage<unknown[]>(page, 'GET', '/guardrails/')).body).toEqual([]);

  await regexes.fill('account-\\d{4}\nsecret-\\d{1,12}');
  await create.click();
  await arriveAt(page, 'Guardrails');
  await shown(page.getByRole('cell', { name: '2 rules: pattern, pii', exact: true }), 'the new guardrail listed');
  const [stored] = (await callApiFromPage<Guardrail[]>(page, 'GET', '/guardrails/')).body;
  expect(stored?.guardrail.rules).toEqual([
    {
      name: 'topics',
      kind: 'pattern',
      phrases: ['insider tip'],
      regexes: ['account-\\d{4}', 'secret-\\d{1,12}'],
      case_sensitive: false,
      position: 'output',
      action: 'block',
    },
    { name: 'cards', kind: 'pii', entities: ['payment_card'], position: 'output', action: 'redact' },
  ]);
  if (!stored) throw new Error('no guardrail stored');
  return stored;
}

/** Waits for the agent's newest run to be recorded with the guardrail rules that fired in it. */
async function recordedGuardrailActions(page: Page, agentId: string): Promise<void> {
  for (;;) {
    type Run = { guardrail_actions: unknown[] };
    const runs = await callApiFromPage<Run[]>(page, 'GET', `/agents/${agentId}/runs`);
    if ((runs.body[0]?.guardrail_actions.length ?? 0) > 0) return;
    await page.waitForTimeout(100);
  }
}

describe('guardrails in the console', () => {
  it('makes a guardrail of two rules, attaches it in the agent form, and refuses its deletion while attached', async () => {
    const { page } = await platform.newVisitor();
    await signUp(page);
    const guardrail = await createGuardrail(page);

    await navigateTo(page, 'Agents');
    await control(page, 'Create agent').click();
    await arriveAt(page, 'New agent');
    await field(page, 'Name').fill('Guarded agent');
    await field(page, 'Model provider').selectOption('mock');
    await field(page, 'Model name').fill('echo');
    await page.getByRole('checkbox', { name: 'Customer data', exact: true }).check();
    await page.getByRole('button', { name: 'Create agent', exact: true }).click();
    await arriveAt(page, 'Guarded agent');
    const agents = (await callApiFromPage<Agent[]>(page, 'GET', '/agents/')).body;
    const agent = agents.find((candidate) => candidate.name === 'Guarded agent');
    expect(agent?.resources.guardrail_ids).toEqual([guardrail.id]);

    // In the playground, the card number the mock model echoes is redacted before it leaves the engine,
    // and the run's record names the rule, which the Runs tab shows.
    await field(page, 'Message').fill('my card is 4111 1111 1111 1111');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const conversation = page.getByRole('log', { name: 'Conversation' });
    await shown(conversation.getByText('You said: my card is [REDACTED:payment_card]'), 'the redacted reply');
    await shown(page.getByRole('button', { name: 'Send', exact: true, disabled: false }), 'Send, enabled again');
    await recordedGuardrailActions(page, agent?.id ?? '');
    await openTab(page, 'Runs');
    const runs = page.getByRole('region', { name: 'Recent runs' });
    await shown(
      runs.getByText('Customer data / cards: redact at output (payment_card)', { exact: true }),
      'the guardrail action in the runs list',
    );
    // And the run's view, from the engine's record of it.
    await runs.getByRole('row').nth(1).getByRole('link').click();
    await arriveAt(page, /^Run [0-9a-f]{8}$/);
    await shown(
      page.getByRole('definition').getByText('Customer data / cards: redact at output (payment_card)', { exact: true }),
      'the guardrail action in the run view',
    );

    await navigateTo(page, 'Guardrails');
    await page.getByRole('main').getByRole('link', { name: 'Customer data', exact: true }).click();
    await arriveAt(page, 'Customer data');
    await shown(page.getByText('Used by 1 agent', { exact: true }), '"Used by 1 agent"');
    // The manager's 409 names the agent using it.
    await deleteAndConfirm(page, page.getByRole('alert').filter({ hasText: 'Guarded agent' }));
    const kept = await callApiFromPage<Guardrail>(page, 'GET', `/guardrails/${guardrail.id}`);
    expect(kept.status).toBe(200);
    expect(kept.body.agent_count).toBe(1);
  });

  it("shows the manager's refusal of a guardrail the agent cannot apply at the guardrail picker", async () => {
    const { page } = await platform.newVisitor();
    await signUp(page);
    const judged = await callApiFromPage(page, 'POST', '/guardrails/', {
      body: {
        name: 'Judged',
        guardrail: {
          rules: [{ name: 'tone', kind: 'model_judge', rubric: 'Rude replies', position: 'input', action: 'block' }],
        },
      },
    });
    expect(judged.status).toBe(201);

    await navigateTo(page, 'Agents');
    await control(page, 'Create agent').click();
    await arriveAt(page, 'New agent');
    await field(page, 'Name').fill('Custom agent');
    await field(page, 'Framework').selectOption('CUSTOM');
    await field(page, 'Module').fill('./agents/custom.mjs:createAgent');
    await page.getByRole('checkbox', { name: 'Judged', exact: true }).check();
    await page.getByRole('button', { name: 'Create agent', exact: true }).click();
    // Only the manager knows the guardrail holds a model judge, which a custom agent has no model for.
    const picker = page.getByRole('group', { name: 'Guardrails', exact: true });
    await shown(picker.getByText(/model_judge rule "tone"/), "the judge's refusal at the guardrail picker");
    expect((await callApiFromPage<unknown[]>(page, 'GET', '/agents/')).body).toEqual([]);
  });

  it("picks the workspace's default guardrails on its settings page", async () => {
    const { page } = await platform.newVisitor();
    await signUp(page);
    const guardrail = await createGuardrail(page);

    await navigateTo(page, 'Workspace settings');
    await page.getByRole('checkbox', { name: 'Customer data', exact: true }).check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await shown(page.getByRole('status').filter({ hasText: 'Saved.' }), '"Saved."');
    const me = (await callApiFromPage<{ workspaces: { id: string }[] }>(page, 'GET', '/auth/me')).body;
    const workspaceId = me.workspaces[0]?.id ?? '';
    const workspace = await callApiFromPage<{ default_guardrail_ids: string[] }>(
      page,
      'GET',
      `/workspaces/${workspaceId}`,
    );
    expect(workspace.body.default_guardrail_ids).toEqual([guardrail.id]);
    // Shown as stored when the page is read again.
    await page.reload();
    await arriveAt(page, 'Workspace settings');
    expect(await page.getByRole('checkbox', { name: 'Customer data', exact: true }).isChecked()).toBe(true);
  });
});
