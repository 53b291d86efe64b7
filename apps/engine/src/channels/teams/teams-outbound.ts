// Replies on Teams through the Bot Framework connector of the conversation (the serviceUrl the
// activity came with, on an allowed host): a reply to the activity, edits of it as the answer streams,
// and the approval card.
//
// Rate limits honoured: Teams throttles a bot per conversation thread at 7 operations per second, 8 per
// 2 s, 60 per 30 s and 1800 per hour, edits included. One edit every 2 s stays within all four even
// when a reply streams for a whole hour; beyond that, a 429 comes back with Retry-After, which the
// worker waits out.
import type { ApprovalRequest, ChannelOutbound, IntegrationOf, ReplyAddress } from '../channel-adapter.js';
import { ChannelApiError } from '../channel-adapter.js';
import { approvalCardAttachment } from './approval-card.js';
import type { BotTokenCache } from './bot-token-cache.js';
import { formatForTeams } from './format-teams.js';
import { allowedServiceUrl, type ServiceUrlPattern } from './service-url-allow.js';
import { callMicrosoft } from './teams-http.js';

export const TEAMS_EDIT_INTERVAL_MS = 2000;
// Teams takes about 28 KB per message, markup and JSON included: 4000 UTF-16 units is at most 12 KB of
// UTF-8, with room for the escaping.
export const TEAMS_TEXT_LIMIT = 4000;

type Deps = { tokens: BotTokenCache; serviceUrlAllow: ServiceUrlPattern[]; timeoutMs: number };

function activityUrl(address: ReplyAddress, activityId: string, allow: ServiceUrlPattern[]): string {
  const { serviceUrl = '', conversationId } = address;
  const base = allowedServiceUrl(serviceUrl, allow);
  if (base === undefined || conversationId === undefined || activityId === '') {
    throw new ChannelApiError('Teams: the reply address is not on an allowed connector host', false, undefined);
  }
  const path = `v3/conversations/${encodeURIComponent(conversationId)}/activities/${encodeURIComponent(activityId)}`;
  return new URL(path, base.href.endsWith('/') ? base.href : `${base.href}/`).href;
}

export function createTeamsOutbound(integration: IntegrationOf<'TEAMS'>, deps: Deps): ChannelOutbound {
  const credentials = { integrationId: integration.id, ...integration.config };

  const send = async (method: 'POST' | 'PUT', url: string, activity: object, signal: AbortSignal) => {
    const token = await deps.tokens.token(credentials);
    try {
      return await callMicrosoft(
        url,
        {
          method,
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(activity),
        },
        { timeoutMs: deps.timeoutMs, signal, what: 'Teams connector' },
      );
    } catch (error) {
      // A token the connector refuses (revoked, rotated) is dropped: the retry gets a fresh one.
      if (!(error instanceof ChannelApiError) || error.status !== 401) throw error;
      deps.tokens.forget(integration.id);
      throw new ChannelApiError(error.message, true, 401, undefined, error.providerCode);
    }
  };

  const reply = async (address: ReplyAddress, activity: object, signal: AbortSignal): Promise<string> => {
    const url = activityUrl(address, address.replyToId ?? '', deps.serviceUrlAllow);
    const answer = (await send('POST', url, { type: 'message', ...activity }, signal)) as { id?: unknown };
    // Posted, but without an id nothing can edit it: not retried, which would post it twice.
    if (typeof answer.id !== 'string' || answer.id === '') {
      throw new ChannelApiError('Teams connector: the reply was posted but its id not returned', false, 200);
    }
    return answer.id;
  };

  return {
    maxLength: TEAMS_TEXT_LIMIT,
    format: formatForTeams,
    editIntervalMs: TEAMS_EDIT_INTERVAL_MS,
    post: (address, text, signal) => reply(address, { text, textFormat: 'markdown' }, signal),
    edit: async (address, messageId, text, signal) => {
      const url = activityUrl(address, messageId, deps.serviceUrlAllow);
      await send('PUT', url, { type: 'message', id: messageId, text, textFormat: 'markdown' }, signal);
    },
    askApproval: (address, request: ApprovalRequest, signal) =>
      reply(address, { attachments: [approvalCardAttachment(request)] }, signal),
  };
}
