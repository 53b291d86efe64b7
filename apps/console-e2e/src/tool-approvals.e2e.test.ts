// Tool calls that wait for a human, answered in the playground (issue 31): the demo agent's policy
// makes every call of everything__echo wait for approval. The mock model calls it on "call echo {…}";
// each call pauses the run on a card. Approved, the tool runs and the model reads its result; rejected,
// the model reads the refusal; a card left open shows again on a thread reopened in a reloaded page,
// where its arguments are edited (checked as a JSON object first) and approved; answered again from a
// second tab, the engine's refusal shows. Axe on each card.
import { ManagerClient } from '@agentplane/manager-client';
import { LOOPBACK_EGRESS_ALLOW } from '@agentplane/server-kit';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { signInInConsole } from './console/account-flows.js';
import { arriveAt, field, inspect, shown } from './console/console-ui.js';
import { type ConsolePlatform, startConsolePlatform } from './testing/console-platform.js';

let platform: ConsolePlatform;
let model: FakeOpenAiServer;

beforeAll(async () => {
  model = await startFakeOpenAiServer();
  // The engine may reach the fake model on loopback, as an operator allows a model server of their own.
  platform = await startConsolePlatform({
    env: { EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW, ENGINE_EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW },
  });
});

afterAll(async () => {
  await platform?.close();
  await model?.close();
});

type Agent = { name: string; description: string | null; framework: string; agent: object; resources: object };

/** Gives the demo agent an approval policy for everything__echo (and `changes` to its agent config), and
 * waits for its engine to run that config. */
async function requireEchoApproval(changes: object = {}): Promise<void> {
  const demo = new ManagerClient(platform.consoleUrl);
  await demo.expect(200, 'POST', '/auth/login', { email: platform.demo.email, password: platform.demo.password });
  const path = `/agents/${platform.demo.agentId}`;
  const agent = await demo.expect<Agent & { engine_url: string }>(200, 'GET', path);
  const { name, description, framework, resources } = agent;
  const tools = { approval: ['everything__echo'] };
  await demo.expect(200, 'PATCH', path, {
    name,
    description,
    framework,
    resources,
    agent: { ...agent.agent, ...changes, tools },
  });
  const published = await demo.expect<{ version: number }>(200, 'GET', `${path}/engine-config`);
  await waitUntil(
    async () => {
      const info = (await (await fetch(agent.engine_url)).json()) as { config_version: number | null };
      return info.config_version === published.version;
    },
    { what: "the demo agent's engine to run the approval policy", timeoutMs: 60_000 },
  );
}

async function send(page: Page, message: string) {
  await field(page, 'Message').fill(message);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await shown(page.getByRole('button', { name: 'Send', exact: true, disabled: false }), 'Send, enabled again');
}

/** The card of the call waiting for approval, once it shows, with the arguments it shows. */
async function approvalCard(page: Page) {
  const card = page.getByRole('article', { name: 'Approve the call of everything__echo?' });
  await shown(card, 'the approval card of everything__echo');
  expect(await card.count()).toBe(1);
  return { card, args: JSON.parse((await card.locator('pre').textContent()) ?? '') as unknown };
}

async function answered(page: Page, reply: RegExp) {
  await shown(page.getByRole('log', { name: 'Conversation' }).getByText(reply).first(), `the reply ${reply}`);
  await shown(page.getByRole('button', { name: 'Send', exact: true, disabled: false }), 'Send, enabled again');
  expect(await page.getByRole('article', { name: /^Approve the call of/ }).count()).toBe(0);
}

describe('tool approvals in the playground', () => {
  it('approves one call, rejects another, and shows a pending one again after a reload', async () => {
    await requireEchoApproval();
    const { page } = await platform.newVisitor();
    await signInInConsole(page, platform.consoleUrl, platform.demo);
    await page.goto(`${platform.consoleUrl}/agents/${platform.demo.agentId}`);
    await arriveAt(page, 'Demo agent');
    const conversation = page.getByRole('log', { name: 'Conversation' });

    // Approved: the tool runs, and the model answers with its result.
    await send(page, 'call echo {"message":"approve me"}');
    const first = await approvalCard(page);
    expect(first.args).toEqual({ message: 'approve me' });
    await shown(
      conversation.getByRole('article', { name: 'Tool call everything__echo' }).getByText('Waiting for your approval.'),
      'the tool call waiting for approval in the conversation',
    );
    expect(await conversation.getByText(/The tool answered/).count()).toBe(0);
    await inspect(page, 'the playground with a tool call waiting for approval', { screenshot: 'tool-approval' });
    await first.card.getByRole('button', { name: 'Approve', exact: true }).click();
    await answered(page, /The tool answered: .*Echo: approve me/);

    // Rejected: the tool is not called, and the model reads why.
    await send(page, 'call echo {"message":"reject me"}');
    const second = await approvalCard(page);
    expect(second.args).toEqual({ message: 'reject me' });
    await second.card.getByRole('button', { name: 'Reject', exact: true }).click();
    await answered(
      page,
      /The tool answered: The call of the tool "everything__echo" was not made: a human rejected it\./,
    );
    expect(await conversation.getByText(/Echo: reject me/).count()).toBe(0);

    // Left open, then the page reloaded: the reopened thread shows the card again.
    await send(page, 'call echo {"message":"later"}');
    await approvalCard(page);
    await page.reload();
    await arriveAt(page, 'Demo agent');
    expect(await page.getByRole('article', { name: /^Approve the call of/ }).count()).toBe(0);
    await page.getByRole('navigation', { name: 'Threads' }).getByRole('listitem').first().getByRole('button').click();
    const third = await approvalCard(page);
    expect(third.args).toEqual({ message: 'later' });

    // The same thread in a second tab, its card open there too, to be answered late.
    const stale = await page.context().newPage();
    await stale.goto(`${platform.consoleUrl}/agents/${platform.demo.agentId}`);
    await arriveAt(stale, 'Demo agent');
    await stale.getByRole('navigation', { name: 'Threads' }).getByRole('listitem').first().getByRole('button').click();
    const staleCard = await approvalCard(stale);

    // Edited: arguments that are not a JSON object are refused in the card; an object is sent.
    await third.card.getByRole('button', { name: 'Edit', exact: true }).click();
    const args = field(third.card, 'Arguments (JSON)');
    await args.fill('{"message":');
    await third.card.getByRole('button', { name: 'Approve with these arguments' }).click();
    await shown(third.card.getByRole('alert').getByText('The arguments are not JSON.'), 'the refusal of broken JSON');
    await args.fill('["later"]');
    await third.card.getByRole('button', { name: 'Approve with these arguments' }).click();
    await shown(
      third.card.getByRole('alert').getByText('The arguments must be a JSON object.'),
      'the refusal of an array',
    );
    await inspect(page, 'an approval card with edited arguments refused');
    await args.fill('{"message":"edited later"}');
    await third.card.getByRole('button', { name: 'Approve with these arguments' }).click();
    await answered(page, /The tool answered: .*Echo: edited later/);
    await inspect(page, 'the playground after the approvals');

    // Answered in the other tab after that: the engine's refusal (409) shows, and nothing runs twice.
    await staleCard.card.getByRole('button', { name: 'Approve', exact: true }).click();
    await shown(
      stale.getByRole('alert').filter({ hasText: /^Run failed: The interrupt "[^"]+" was answered already\.$/ }),
      "the engine's refusal of a second answer",
    );
    await inspect(stale, 'the playground refused a second answer');
    expect(
      await stale
        .getByRole('log', { name: 'Conversation' })
        .getByText(/Echo: later$/)
        .count(),
    ).toBe(0);
  });

  it('resumes a run that made two calls once both cards are answered, one approved and one rejected', async () => {
    await requireEchoApproval({
      model: { provider: 'openai', name: 'fake-model', baseUrl: model.baseUrl, apiKey: 'k' },
    });
    const call = (id: string, message: string) => ({
      id,
      name: 'everything__echo',
      arguments: [JSON.stringify({ message })],
    });
    model.script({ toolCalls: [call('call_one', 'first'), call('call_two', 'second')] }, { text: ['Both answered.'] });
    const { page } = await platform.newVisitor();
    await signInInConsole(page, platform.consoleUrl, platform.demo);
    await page.goto(`${platform.consoleUrl}/agents/${platform.demo.agentId}`);
    await arriveAt(page, 'Demo agent');

    await send(page, 'Echo twice');
    const cards = page.getByRole('article', { name: 'Approve the call of everything__echo?' });
    await shown(cards.nth(1), 'two approval cards');
    expect(await cards.count()).toBe(2);
    const requestsBefore = model.requests.length;
    await cards.nth(0).getByRole('button', { name: 'Approve', exact: true }).click();
    // One answered: it waits in its card, and no run goes until the other is answered too.
    await shown(
      cards
        .nth(0)
        .getByRole('status')
        .getByText(/^Approved; waiting/),
      'the first answer, held',
    );
    await inspect(page, 'one of two approval cards answered');
    expect(model.requests.length).toBe(requestsBefore);
    await cards.nth(1).getByRole('button', { name: 'Reject', exact: true }).click();
    await answered(page, /Both answered\./);

    // The model read both outcomes in the one resumed run.
    const resumed = model.requests.at(-1)?.body.messages ?? [];
    const results = new Map(
      resumed.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, JSON.stringify(m.content)]),
    );
    expect(results.get('call_one')).toContain('Echo: first');
    expect(results.get('call_two')).toContain('was not made: a human rejected it');
    expect(model.requests.length).toBe(requestsBefore + 1);
  });
});
