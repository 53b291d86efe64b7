import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeDiscordApi, startFakeDiscordApi } from '../../testing/fake-discord-api.js';
import { hold } from '../../testing/gate.js';
import { rejectionOf } from '../../testing/rejection-of.js';
import { ChannelApiError, type ChannelOutbound, type IntegrationOf } from '../channel-adapter.js';
import { readApprovalPress } from './approval-buttons.js';
import { createDiscordAdapter } from './discord-adapter.js';

const APPLICATION_ID = '123456789012345678';
const integration: IntegrationOf<'DISCORD'> = {
  id: randomUUID(),
  provider: 'DISCORD',
  enabled: true,
  config: { applicationId: APPLICATION_ID, publicKey: 'ab'.repeat(32), botToken: 'bot-token' },
};
const signal = new AbortController().signal;

let fake: FakeDiscordApi;
let outbound: ChannelOutbound;

beforeAll(async () => {
  fake = await startFakeDiscordApi();
  // Generous: a loaded machine must not turn an answered call into a timeout. Only the held answer below
  // is meant to time out, through an adapter of its own.
  outbound = createDiscordAdapter({ apiBaseUrl: fake.baseUrl, timeoutMs: 30_000 }).outbound(integration);
});
afterAll(() => fake.close());

/** An interaction Discord took a deferred answer to. */
function deferredInteraction() {
  const token = `itoken-${randomUUID()}`;
  fake.answered(token, { type: 5 });
  return { interactionToken: token, channelId: '222222222222222222' };
}

describe('Discord replies', () => {
  it('fills the "thinking…" message first, edits it, and sends later parts as follow-ups, never pinging', async () => {
    const address = deferredInteraction();
    const before = fake.calls.length;
    const first = await outbound.post(address, 'Hello', signal);
    await outbound.edit?.(address, first, 'Hello, world', signal);
    const second = await outbound.post(address, 'Part two', signal);
    const calls = fake.calls.slice(before);
    const webhook = `/webhooks/${APPLICATION_ID}/${address.interactionToken}`;
    expect(calls.map(({ method, path }) => `${method} ${path}`)).toEqual([
      `GET ${webhook}/messages/@original`,
      `PATCH ${webhook}/messages/@original`,
      `PATCH ${webhook}/messages/${first}`,
      `GET ${webhook}/messages/@original`,
      `POST ${webhook}`,
    ]);
    for (const call of calls.filter((call) => call.method !== 'GET')) {
      expect(call.body?.allowed_mentions).toEqual({ parse: [] });
    }
    const byId = (id: string) => fake.messages.find((message) => message.id === id);
    expect(byId(first)?.contents).toEqual(['Hello', 'Hello, world']);
    expect(byId(second)?.contents).toEqual(['Part two']);
  });

  it('asks for approval with two buttons whose custom ids carry the interrupt, the decision and the requester', async () => {
    const address = deferredInteraction();
    const interruptId = randomUUID();
    const id = await outbound.askApproval?.(
      address,
      { interruptId, toolName: 'refund', prompt: 'Run `refund` for order 42?', requester: '111111111111111111' },
      signal,
    );
    const message = fake.messages.find((candidate) => candidate.id === id);
    expect(message?.content).toBe('Run `refund` for order 42?\n\nOnly <@111111111111111111> can answer.');
    const buttons = message?.components[0]?.components ?? [];
    expect(buttons.map((button) => button.label)).toEqual(['Approve', 'Reject']);
    expect(buttons.map((button) => readApprovalPress(String(button.custom_id)))).toEqual([
      { interruptId, approved: true, requester: '111111111111111111' },
      { interruptId, approved: false, requester: '111111111111111111' },
    ]);
  });

  it('asks again later when Discord has not taken the deferred answer yet', async () => {
    const token = `itoken-${randomUUID()}`;
    fake.answered(token, { type: 6 }, 'no-such-message');
    const failure = await rejectionOf(
      outbound.post({ interactionToken: token, channelId: '1' }, 'early', signal),
      ChannelApiError,
    );
    expect(failure).toMatchObject({ retryable: true, status: 404, retryAfterMs: 1000 });
  });

  it("honours a 429's Retry-After, which Discord rounds up from the body's retry_after", async () => {
    const address = deferredInteraction();
    fake.script({ status: 429, retryAfterSeconds: 1.5 });
    expect(await rejectionOf(outbound.post(address, 'x', signal), ChannelApiError)).toMatchObject({
      retryable: true,
      status: 429,
      retryAfterMs: 2000,
    });
  });

  it('retries 5xx and timeouts, and not an expired interaction token', async () => {
    const address = deferredInteraction();
    fake.script({ status: 502 });
    expect(await rejectionOf(outbound.post(address, 'x', signal), ChannelApiError)).toMatchObject({
      retryable: true,
      status: 502,
    });
    const held = hold();
    fake.script({ status: 200, gate: held.gate });
    const impatient = createDiscordAdapter({ apiBaseUrl: fake.baseUrl, timeoutMs: 500 }).outbound(integration);
    try {
      const timeout = await rejectionOf(impatient.post(address, 'x', signal), ChannelApiError);
      expect(timeout).toMatchObject({ retryable: true, status: undefined });
      expect(timeout.message).toMatch(/no answer within 500 ms/);
    } finally {
      held.release();
    }
    const expired = await rejectionOf(
      outbound.post({ interactionToken: 'gone', channelId: '1' }, 'x', signal),
      ChannelApiError,
    );
    expect(expired).toMatchObject({ retryable: false, status: 401, providerCode: 50027 });
    expect(expired.message).toMatch(/15 minutes/);
  });

  it('splits at 2000 characters and edits no more than once per 1.25 s', () => {
    expect(outbound.maxLength).toBe(2000);
    expect(outbound.editIntervalMs).toBe(1250);
  });
});
