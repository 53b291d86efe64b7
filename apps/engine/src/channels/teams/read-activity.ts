// Reads one Bot Framework activity into an inbound item: a message (its text without the @mention of
// the bot that Teams puts in channel messages, its files as references) or a press of an approval
// button. Everything else (the bot's own messages, conversation updates, reactions, typing, invokes,
// other cards' submits) needs no answer and becomes nothing.
import type { InboundAttachment, InboundItem } from '../channel-adapter.js';
import { readApprovalPress } from './approval-card.js';
import type { TBotActivity, TBotAttachment } from './bot-activity.js';

// Teams sends a file shared in a chat as this, with the file's URL in content.downloadUrl.
const TEAMS_FILE = 'application/vnd.microsoft.teams.file.download.info';

function readAttachment(attachment: TBotAttachment): InboundAttachment | undefined {
  const { contentType, contentUrl, name } = attachment;
  if (contentType === TEAMS_FILE) {
    const downloadUrl = (attachment.content as { downloadUrl?: unknown } | undefined)?.downloadUrl;
    const ref = typeof downloadUrl === 'string' ? downloadUrl : contentUrl;
    return ref === undefined ? undefined : { kind: 'file', ref, ...(name === undefined ? {} : { name }) };
  }
  // Teams's HTML rendering of the text and cards carry no file: the text already says what they say.
  if (contentUrl === undefined || contentType === 'text/html') return undefined;
  const major = contentType.split('/')[0];
  const kind = major === 'image' || major === 'audio' || major === 'video' ? major : 'file';
  return { kind, ref: contentUrl, mimeType: contentType, ...(name === undefined ? {} : { name }) };
}

// In a channel or group chat the text names the bot ("<at>Helper</at> what is…"): not for the agent.
function withoutBotMention(activity: TBotActivity): string {
  let text = activity.text ?? '';
  for (const entity of activity.entities ?? []) {
    const mentionsBot = entity.type === 'mention' && entity.mentioned?.id === activity.recipient?.id;
    if (mentionsBot && entity.text !== undefined && entity.text !== '') text = text.replaceAll(entity.text, '');
  }
  return text.trim();
}

export function readActivity(activity: TBotActivity, appId: string): InboundItem | undefined {
  const { id, from, conversation } = activity;
  if (activity.type !== 'message' || id === undefined || from === undefined || conversation === undefined) {
    return undefined;
  }
  if (from.id === activity.recipient?.id || from.id === `28:${appId}`) return undefined;
  const base = {
    // Teams message ids are unique within a conversation (a channel's are timestamps), not across them.
    providerMessageId: `${conversation.id}|${id}`,
    conversation: conversation.id,
    sender: from.id,
    address: { serviceUrl: activity.serviceUrl, conversationId: conversation.id, replyToId: id },
  };
  const press = readApprovalPress(activity.value);
  if (press !== undefined) return { ...base, kind: 'approval', ...press };
  const text = withoutBotMention(activity);
  const attachments = (activity.attachments ?? []).flatMap((attachment) => readAttachment(attachment) ?? []);
  if (text === '' && attachments.length === 0) return undefined;
  return { ...base, kind: 'message', text: text === '' ? undefined : text, attachments };
}
