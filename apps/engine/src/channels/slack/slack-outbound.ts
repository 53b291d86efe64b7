// Replies on one Slack integration: chat.postMessage in the conversation's thread, chat.update for a
// streamed reply, and the approval message with Block Kit buttons.
import type { ChannelOutbound, ReplyAddress } from '../channel-adapter.js';
import { ChannelApiError } from '../channel-adapter.js';
import { approvalBlocks } from './approval-blocks.js';
import { escapeMrkdwn, formatMrkdwn, SLACK_TEXT_LIMIT } from './format-mrkdwn.js';
import { callSlack, type SlackApiTarget } from './slack-web-api.js';

/**
 * Slack's limits on what a reply calls: chat.update is Tier 3 (about 50 a minute per workspace, shared
 * by every reply streaming there at once) and chat.postMessage about one a second per channel. One
 * edit every 3 s lets a few replies stream in one workspace at once within Tier 3; a 429 beyond that
 * is retried after its Retry-After by the queue.
 */
export const SLACK_EDIT_INTERVAL_MS = 3000;

/** Where the message goes: the channel, and the thread when the conversation is one. */
function placement(address: ReplyAddress): { channel: string; thread_ts?: string } {
  const { channel, thread_ts } = address;
  if (channel === undefined) throw new ChannelApiError('The reply address names no Slack channel.', false, undefined);
  return thread_ts === undefined ? { channel } : { channel, thread_ts };
}

function postedTs(ts: string | undefined): string {
  if (ts === undefined) throw new ChannelApiError('Slack posted the message but returned no ts.', false, 200);
  return ts;
}

export function slackOutbound(target: SlackApiTarget): ChannelOutbound {
  return {
    maxLength: SLACK_TEXT_LIMIT,
    format: formatMrkdwn,
    editIntervalMs: SLACK_EDIT_INTERVAL_MS,
    post: async (address, text, signal) => {
      const result = await callSlack(target, signal, (client) =>
        client.chat.postMessage({ ...placement(address), text }),
      );
      return postedTs(result.ts);
    },
    edit: async (address, messageId, text, signal) => {
      const { channel } = placement(address);
      await callSlack(target, signal, (client) => client.chat.update({ channel, ts: messageId, text }));
    },
    askApproval: async (address, request, signal) => {
      const result = await callSlack(target, signal, (client) =>
        client.chat.postMessage({
          ...placement(address),
          // What notifications and clients without Block Kit show.
          text: escapeMrkdwn(`Approval needed: ${request.prompt}`).slice(0, SLACK_TEXT_LIMIT),
          blocks: approvalBlocks(request),
        }),
      );
      return postedTs(result.ts);
    },
  };
}
