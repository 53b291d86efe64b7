import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { buttonData, type FakeTeamsApi, fakeTeamsSettings, startFakeTeamsApi } from '../../testing/fake-teams-api.js';
import { rejectionOf } from '../../testing/rejection-of.js';
import { ChannelApiError, type IntegrationOf, type ReplyAddress } from '../channel-adapter.js';
import { readApprovalPress } from './approval-card.js';
import { createTeamsAdapter } from './teams-adapter.js';

let api: FakeTeamsApi;
let adapter: ReturnType<typeof createTeamsAdapter>;
const signal = new AbortController().signal;

function makeIntegration(overrides: Partial<IntegrationOf<'TEAMS'>['config']> = {}): IntegrationOf<'TEAMS'> {
  const appId = randomUUID();
  const config = { appId, appPassword: `password-${appId}`, ...overrides };
  api.registerBot(appId, `password-${appId}`);
  return { id: randomUUID(), provider: 'TEAMS', enabled: true, config } as IntegrationOf<'TEAMS'>;
}

const address = (): ReplyAddress => ({
  serviceUrl: api.serviceUrl,
  conversationId: '19:chan@thread.tacv2;messageid=17',
  replyToId: '1700000000017',
});

const failed = (reply: Promise<unknown>) => rejectionOf(reply, ChannelApiError);

beforeAll(async () => {
  api = await startFakeTeamsApi();
  adapter = createTeamsAdapter(fakeTeamsSettings(api, 1000));
});

beforeEach(() => {
  api.calls.length = 0;
  api.tokenRequests.length = 0;
  api.delivered.length = 0;
});

afterAll(async () => {
  await api.close();
});

describe('Teams replies', () => {
  it('reply to the activity in its conversation, as markdown, with one bot token per integration reused', async () => {
    const integration = makeIntegration();
    const outbound = adapter.outbound(integration);
    const first = await outbound.post(address(), '**one**', signal);
    const second = await outbound.post(address(), 'two', signal);
    expect(first).not.toBe(second);
    expect(
      api.calls.map(({ method, conversationId, activityId, appId }) => ({ method, conversationId, activityId, appId })),
    ).toEqual([
      {
        method: 'POST',
        conversationId: '19:chan@thread.tacv2;messageid=17',
        activityId: '1700000000017',
        appId: integration.config.appId,
      },
      {
        method: 'POST',
        conversationId: '19:chan@thread.tacv2;messageid=17',
        activityId: '1700000000017',
        appId: integration.config.appId,
      },
    ]);
    expect(api.calls[0]?.body).toEqual({ type: 'message', text: '**one**', textFormat: 'markdown' });
    expect(api.tokenRequests).toEqual([
      {
        tenant: 'botframework.com',
        clientId: integration.config.appId,
        scope: 'https://api.botframework.com/.default',
        granted: true,
      },
    ]);
  });

  it('share one token request among replies sent at once', async () => {
    const outbound = adapter.outbound(makeIntegration());
    await Promise.all([1, 2, 3].map((n) => outbound.post(address(), `reply ${n}`, signal)));
    expect(api.tokenRequests).toHaveLength(1);
    expect(api.delivered).toEqual(expect.arrayContaining(api.calls));
  });

  it("get a single-tenant bot's token from its own tenant", async () => {
    const tenantId = randomUUID();
    await adapter.outbound(makeIntegration({ tenantId })).post(address(), 'hi', signal);
    expect(api.tokenRequests.map((request) => request.tenant)).toEqual([tenantId]);
  });

  it('edit the posted message in place (PUT of the same activity id)', async () => {
    const outbound = adapter.outbound(makeIntegration());
    const id = await outbound.post(address(), 'par', signal);
    await outbound.edit?.(address(), id, 'partial answer', signal);
    expect(api.calls[1]).toMatchObject({
      method: 'PUT',
      activityId: id,
      body: { type: 'message', id, text: 'partial answer', textFormat: 'markdown' },
    });
    expect(outbound.editIntervalMs).toBeGreaterThanOrEqual(1000);
  });

  it('ask for approval with an Adaptive Card whose Approve and Reject buttons carry the interrupt and the decision', async () => {
    const outbound = adapter.outbound(makeIntegration());
    const request = {
      interruptId: 'int-42',
      toolName: 'send_invoice',
      prompt: 'send_invoice({"to":"x"})',
      requester: '29:alice',
    };
    await outbound.askApproval?.(address(), request, signal);
    const [call] = api.calls;
    expect(call?.body.attachments?.[0]?.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(readApprovalPress(buttonData(call, 'Approve'))).toEqual({ interruptId: 'int-42', approved: true });
    expect(readApprovalPress(buttonData(call, 'Reject'))).toEqual({ interruptId: 'int-42', approved: false });
  });
});

describe('Teams reply failures', () => {
  it('a 429 is retryable and carries Retry-After; a 5xx is retryable; a 403 or 404 is not', async () => {
    const outbound = adapter.outbound(makeIntegration());
    api.script({ status: 429, headers: { 'Retry-After': '7' } }, { status: 502 }, { status: 403 }, { status: 404 });
    const throttled = await failed(outbound.post(address(), 'a', signal));
    expect(throttled).toMatchObject({ retryable: true, status: 429, retryAfterMs: 7000, providerCode: 'Scripted' });
    expect(await failed(outbound.post(address(), 'a', signal))).toMatchObject({ retryable: true, status: 502 });
    expect(await failed(outbound.post(address(), 'a', signal))).toMatchObject({ retryable: false, status: 403 });
    expect(await failed(Promise.resolve(outbound.edit?.(address(), 'reply-1', 'a', signal)))).toMatchObject({
      retryable: false,
      status: 404,
    });
  });

  it('a connector that does not answer in time is a retryable timeout', async () => {
    const outbound = adapter.outbound(makeIntegration());
    const never = new Promise(() => undefined);
    api.script({ status: 201, gate: never });
    const error = await failed(outbound.post(address(), 'a', signal));
    expect(error).toMatchObject({ retryable: true, status: undefined });
    expect(error.message).toMatch(/no answer within 1000 ms/);
  });

  it('a token the connector refuses is forgotten: retryable, and the retry asks for a new token', async () => {
    const outbound = adapter.outbound(makeIntegration());
    api.script({ status: 401 });
    expect(await failed(outbound.post(address(), 'a', signal))).toMatchObject({ retryable: true, status: 401 });
    await outbound.post(address(), 'a', signal);
    expect(api.tokenRequests).toHaveLength(2);
  });

  it('a wrong app password is not retryable, and nothing reaches the connector', async () => {
    const integration = makeIntegration();
    const outbound = adapter.outbound({ ...integration, config: { ...integration.config, appPassword: 'wrong' } });
    const error = await failed(outbound.post(address(), 'a', signal));
    expect(error).toMatchObject({ retryable: false, status: 401, providerCode: 'invalid_client' });
    expect(api.calls).toHaveLength(0);
  });

  it('an address on a host the operator does not allow is not called, nor retried', async () => {
    const outbound = adapter.outbound(makeIntegration());
    const elsewhere = { ...address(), serviceUrl: 'https://attacker.example/amer/' };
    expect(await failed(outbound.post(elsewhere, 'a', signal))).toMatchObject({ retryable: false });
    expect(api.calls).toHaveLength(0);
    expect(api.tokenRequests).toHaveLength(0);
  });
});
