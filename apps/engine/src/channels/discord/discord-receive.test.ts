import { randomUUID } from 'node:crypto';
import { AppError } from '@agentplane/server-kit';
import { describe, expect, it } from '@jest/globals';
import {
  askCommand,
  buttonPress,
  makeDiscordApplication,
  pingInteraction,
  signInteraction,
} from '../../testing/discord-interactions.js';
import { rejectionOf } from '../../testing/rejection-of.js';
import type { IntegrationOf, ReceivedDelivery } from '../channel-adapter.js';
import { approvalCustomId } from './approval-buttons.js';
import { createDiscordAdapter } from './discord-adapter.js';

const application = makeDiscordApplication();
const integration: IntegrationOf<'DISCORD'> = {
  id: randomUUID(),
  provider: 'DISCORD',
  enabled: true,
  config: { applicationId: application.applicationId, publicKey: application.publicKey, botToken: 'bot-token' },
};
const adapter = createDiscordAdapter({ apiBaseUrl: 'http://127.0.0.1:9', timeoutMs: 1000 });
const alice = { userId: '111111111111111111', channelId: '222222222222222222', guildId: '333333333333333333' };
const bob = { ...alice, userId: '444444444444444444' };

type Headers = Record<string, string>;

function receive(body: string, headers: Headers, now = Date.now()): Promise<ReceivedDelivery> {
  return adapter.receive(
    { rawBody: Buffer.from(body, 'utf8'), header: (name) => headers[name], url: 'https://engine.test/x', now },
    integration,
  );
}

const receiveSigned = (interaction: unknown) => {
  const signed = signInteraction(application, JSON.stringify(interaction));
  return receive(signed.body, signed.headers);
};

const answerOf = (received: ReceivedDelivery) =>
  JSON.parse(received.answer.body) as { type: number; data?: { content?: string; flags?: number } };

describe('Discord deliveries', () => {
  it('answers the PING handshake with a PONG and queues nothing', async () => {
    const received = await receiveSigned(pingInteraction(application));
    expect(received.answer.status).toBe(200);
    expect(answerOf(received)).toEqual({ type: 1 });
    expect(received.items).toEqual([]);
  });

  it('defers a slash command and reads it into a message of its channel, keyed by the interaction id', async () => {
    const interaction = askCommand(application, alice, 'What is our refund policy?');
    const received = await receiveSigned(interaction);
    expect(answerOf(received)).toEqual({ type: 5 });
    expect(received.items).toEqual([
      {
        kind: 'message',
        providerMessageId: interaction.id,
        conversation: alice.channelId,
        sender: alice.userId,
        text: 'What is our refund policy?',
        attachments: [],
        address: { interactionToken: interaction.token, channelId: alice.channelId },
      },
    ]);
  });

  it('reads a direct message user, attachment options as references, and a message command as its target', async () => {
    const direct = askCommand(application, { userId: alice.userId, channelId: '555555555555555555' }, 'hi');
    const withFile = {
      ...direct,
      data: {
        ...direct.data,
        options: [
          { name: 'file', type: 11, value: '666666666666666666' },
          { name: 'prompt', type: 3, value: 'read this' },
        ],
        resolved: {
          attachments: {
            '666666666666666666': {
              id: '666666666666666666',
              filename: 'scan.png',
              url: 'https://cdn.discordapp.com/attachments/1/2/scan.png',
              content_type: 'image/png',
            },
          },
        },
      },
    };
    const [item] = (await receiveSigned(withFile)).items;
    expect(item).toMatchObject({ sender: alice.userId, conversation: '555555555555555555', text: 'read this' });
    expect(item?.kind === 'message' && item.attachments).toEqual([
      {
        kind: 'image',
        ref: 'https://cdn.discordapp.com/attachments/1/2/scan.png',
        name: 'scan.png',
        mimeType: 'image/png',
      },
    ]);

    const target = '777777777777777777';
    const onMessage = {
      ...direct,
      data: {
        name: 'Ask the agent',
        type: 3,
        target_id: target,
        resolved: { messages: { [target]: { content: 'Is this invoice paid?', attachments: [] } } },
      },
    };
    expect((await receiveSigned(onMessage)).items[0]).toMatchObject({ kind: 'message', text: 'Is this invoice paid?' });
  });

  it('queues a command without text as content the agent cannot read', async () => {
    const interaction = { ...askCommand(application, alice, ''), data: { name: 'ask', type: 1, options: [] } };
    expect((await receiveSigned(interaction)).items[0]).toMatchObject({ kind: 'message', text: undefined });
  });

  it('refuses unsigned, forged, tampered, stale and foreign deliveries with 401', async () => {
    const body = JSON.stringify(askCommand(application, alice, 'hello'));
    const signed = signInteraction(application, body);
    expect((await rejectionOf(receive(body, {}), AppError)).status).toBe(401);
    const forged = signInteraction(makeDiscordApplication(), body);
    expect((await rejectionOf(receive(body, forged.headers), AppError)).status).toBe(401);
    expect((await rejectionOf(receive(body.replace('hello', 'hullo'), signed.headers), AppError)).status).toBe(401);
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 6 * 60;
    const stale = signInteraction(application, body, sixMinutesAgo);
    expect((await rejectionOf(receive(stale.body, stale.headers), AppError)).status).toBe(401);
    const ahead = signInteraction(application, body, sixMinutesAgo + 12 * 60);
    expect((await rejectionOf(receive(ahead.body, ahead.headers), AppError)).status).toBe(401);
    const other = { ...askCommand(application, alice, 'hello'), application_id: '999999999999999999' };
    const foreign = await rejectionOf(receiveSigned(other), AppError);
    expect(foreign.status).toBe(401);
    expect(foreign.message).toMatch(/another application/);
  });

  it('refuses signed bodies that are not interactions, or hold what cannot be stored, with a 4xx', async () => {
    const statusOf = async (body: string) => {
      const signed = signInteraction(application, body);
      return (await rejectionOf(receive(signed.body, signed.headers), AppError)).status;
    };
    expect(await statusOf('not json')).toBe(400);
    expect(await statusOf(JSON.stringify({ type: 2 }))).toBe(400);
    expect(await statusOf(JSON.stringify(askCommand(application, alice, 'nul\u0000here')))).toBe(422);
    expect(await statusOf(JSON.stringify(askCommand(application, alice, 'lone \ud800 surrogate')))).toBe(422);
    const huge = { ...buttonPress(application, alice, { id: '1', content: '' }, 'x'.repeat(100_000)) };
    expect(await statusOf(JSON.stringify(huge))).toBe(400);
  });

  it("takes the requester's press of an approval button off the message and queues the decision", async () => {
    const interruptId = randomUUID();
    const customId = approvalCustomId({ interruptId, approved: true, requester: alice.userId });
    const press = buttonPress(application, alice, { id: '888888888888888888', content: 'Run `refund`?' }, customId);
    const received = await receiveSigned(press);
    expect(answerOf(received)).toEqual({
      type: 7,
      data: {
        content: `Run \`refund\`?\n\nApproved by <@${alice.userId}>.`,
        components: [],
        allowed_mentions: { parse: [] },
      },
    });
    expect(received.items).toEqual([
      {
        kind: 'approval',
        providerMessageId: press.id,
        conversation: alice.channelId,
        sender: alice.userId,
        interruptId,
        approved: true,
        address: { interactionToken: press.token, channelId: alice.channelId },
      },
    ]);
  });

  it('tells anyone else who presses that only the requester can answer, and queues nothing', async () => {
    const customId = approvalCustomId({ interruptId: randomUUID(), approved: false, requester: alice.userId });
    const received = await receiveSigned(buttonPress(application, bob, { id: '1', content: 'Run?' }, customId));
    const answer = answerOf(received);
    expect(answer.type).toBe(4);
    expect(answer.data?.flags).toBe(64);
    expect(answer.data?.content).toContain(`<@${alice.userId}>`);
    expect(received.items).toEqual([]);
  });

  it('acknowledges components and interactions it has nothing to do with, and queues nothing', async () => {
    const other = await receiveSigned(buttonPress(application, alice, { id: '1', content: '' }, 'somebody-elses'));
    expect(answerOf(other)).toEqual({ type: 6 });
    expect(other.items).toEqual([]);
    const autocomplete = await receiveSigned({ ...askCommand(application, alice, 'x'), type: 4 });
    expect(answerOf(autocomplete)).toEqual({ type: 8, data: { choices: [] } });
    const modal = await receiveSigned({ ...askCommand(application, alice, 'x'), type: 5 });
    expect(answerOf(modal).data?.flags).toBe(64);
    expect(modal.items).toEqual([]);
  });
});
