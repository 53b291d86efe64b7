// Replies to an interaction, through its webhook (the interaction token opens it; no bot token is sent).
// The first message of an answer fills the "thinking…" message Discord shows after a deferred response
// (PATCH …/messages/@original); every later one is a follow-up (POST …/{token}). Which applies is asked
// of Discord (the original's LOADING flag), not remembered, so an engine restarted mid-answer continues
// where Discord stands.
//
// Rate limits: Discord allows about 5 edits of a channel's messages per 5 seconds; one edit per 1.25 s
// leaves room for the reply's follow-ups in the same window. Any 429 is retried after what Discord asked.
import type { DiscordSettings } from '../../env.js';
import { type ApprovalRequest, ChannelApiError, type ChannelOutbound, type IntegrationOf } from '../channel-adapter.js';
import { approvalComponents } from './approval-buttons.js';
import { callDiscord, DISCORD_ERROR } from './discord-api.js';
import { formatForDiscord } from './discord-format.js';
import { DISCORD_MESSAGE_MAX_LENGTH, NO_MENTIONS } from './discord-message.js';
import type { DiscordAddress } from './read-interaction.js';

export const DISCORD_EDIT_INTERVAL_MS = 1250;

/** Discord's message flag for a deferred response still "thinking". */
const LOADING_FLAG = 1 << 7;

/** How soon to look again for an original Discord has not created yet (the webhook's answer is on its way). */
const UNANSWERED_RETRY_MS = 1000;

type MessageBody = { content: string; allowed_mentions: typeof NO_MENTIONS; components?: unknown[] };

function readMessage(json: unknown): { id: string; flags: number } {
  const message = json as { id?: unknown; flags?: unknown } | null;
  if (typeof message?.id !== 'string') {
    throw new ChannelApiError('Discord answered a message without an id', true, undefined);
  }
  return { id: message.id, flags: typeof message.flags === 'number' ? message.flags : 0 };
}

function readAddress(address: Record<string, string>): DiscordAddress {
  const { interactionToken, channelId } = address;
  if (interactionToken === undefined || channelId === undefined) {
    throw new ChannelApiError('the reply address has no interaction token', false, undefined);
  }
  return { interactionToken, channelId };
}

export function createDiscordOutbound(
  settings: DiscordSettings,
  integration: IntegrationOf<'DISCORD'>,
): ChannelOutbound {
  const webhookPath = (address: Record<string, string>) =>
    `/webhooks/${encodeURIComponent(integration.config.applicationId)}/${encodeURIComponent(readAddress(address).interactionToken)}`;

  const isStillThinking = async (address: Record<string, string>, signal: AbortSignal): Promise<boolean> => {
    try {
      const original = readMessage(
        await callDiscord(settings, { method: 'GET', path: `${webhookPath(address)}/messages/@original`, signal }),
      );
      return (original.flags & LOADING_FLAG) !== 0;
    } catch (error) {
      // The worker may be faster than Discord taking the webhook's deferred answer.
      if (error instanceof ChannelApiError && error.providerCode === DISCORD_ERROR.unknownMessage) {
        throw new ChannelApiError('the interaction has no answer on Discord yet', true, 404, UNANSWERED_RETRY_MS);
      }
      throw error;
    }
  };

  const send = async (address: Record<string, string>, body: MessageBody, signal: AbortSignal): Promise<string> => {
    const path = webhookPath(address);
    const sent = (await isStillThinking(address, signal))
      ? await callDiscord(settings, { method: 'PATCH', path: `${path}/messages/@original`, body, signal })
      : await callDiscord(settings, { method: 'POST', path: `${path}?wait=true`, body, signal });
    return readMessage(sent).id;
  };

  return {
    maxLength: DISCORD_MESSAGE_MAX_LENGTH,
    format: formatForDiscord,
    editIntervalMs: DISCORD_EDIT_INTERVAL_MS,
    post: (address, text, signal) => send(address, { content: text, allowed_mentions: NO_MENTIONS }, signal),
    edit: async (address, messageId, text, signal) => {
      const path = `${webhookPath(address)}/messages/${encodeURIComponent(messageId)}`;
      await callDiscord(settings, {
        method: 'PATCH',
        path,
        body: { content: text, allowed_mentions: NO_MENTIONS },
        signal,
      });
    },
    askApproval: (address, request: ApprovalRequest, signal) => {
      const footer = `\n\nOnly <@${request.requester}> can answer.`;
      const content = `${request.prompt.slice(0, DISCORD_MESSAGE_MAX_LENGTH - footer.length)}${footer}`;
      return send(address, { content, allowed_mentions: NO_MENTIONS, components: approvalComponents(request) }, signal);
    },
  };
}
