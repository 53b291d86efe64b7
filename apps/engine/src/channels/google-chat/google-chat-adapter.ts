// Google Chat as a channel: events reach the app's HTTP endpoint with a Google-signed bearer token
// (verify-chat-token.ts); replies, streamed edits and approval cards go through the Chat API as the
// integration's service account (chat-api-client.ts).
import { INTEGRATION_WEBHOOK_SLUGS } from '@agentplane/contracts';
import type { ChannelAdapter, ChannelOutbound, IntegrationOf } from '../channel-adapter.js';
import { approvalMessage } from './approval-card.js';
import { type ChatApiTarget, createChatMessage, updateChatMessageText } from './chat-api-client.js';
import { formatChatText } from './format-chat-text.js';
import type { GoogleChatSettings } from './google-chat-settings.js';
import { readChatEvent } from './read-chat-event.js';
import { createAccessTokens } from './service-account-token.js';
import { createChatTokenVerifier } from './verify-chat-token.js';

/** A Chat message's text holds at most 4,096 characters. */
export const CHAT_TEXT_LIMIT = 4096;

/**
 * The Chat API lets an app write about once per second in one space (60 writes per minute per space;
 * a project has its own, larger, per-minute quota): edits of a streamed reply are spaced by more than
 * that, leaving room for the other conversations of the space and for the reply's last parts.
 */
export const CHAT_EDIT_INTERVAL_MS = 1500;

// Chat shows an HTTP app's synchronous answer as a reply; the agent answers later, through the API.
const NO_SYNCHRONOUS_REPLY = { status: 200, contentType: 'application/json', body: '{}' } as const;

export function createGoogleChatAdapter(settings: GoogleChatSettings): ChannelAdapter<'GOOGLE_CHAT'> {
  const verifyToken = createChatTokenVerifier(settings);
  const accessTokens = createAccessTokens(settings);

  return {
    provider: 'GOOGLE_CHAT',
    slug: INTEGRATION_WEBHOOK_SLUGS.GOOGLE_CHAT,
    receive: async (delivery, integration) => {
      await verifyToken(delivery.header('authorization'), integration.config.audience, delivery.now);
      return { answer: NO_SYNCHRONOUS_REPLY, items: readChatEvent(delivery.rawBody) };
    },
    outbound: (integration: IntegrationOf<'GOOGLE_CHAT'>): ChannelOutbound => {
      const target: ChatApiTarget = {
        apiBaseUrl: settings.apiBaseUrl,
        timeoutMs: settings.timeoutMs,
        accessToken: () => accessTokens.tokenFor(integration.id, integration.config),
        dropAccessToken: () => accessTokens.forget(integration.id),
      };
      return {
        maxLength: CHAT_TEXT_LIMIT,
        format: formatChatText,
        post: (address, text, signal) => createChatMessage(target, address, { text }, signal),
        edit: (_address, messageId, text, signal) => updateChatMessageText(target, messageId, text, signal),
        editIntervalMs: CHAT_EDIT_INTERVAL_MS,
        askApproval: (address, request, signal) => createChatMessage(target, address, approvalMessage(request), signal),
      };
    },
  };
}
