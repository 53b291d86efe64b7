// A verified interaction read into what the webhook answers Discord within its 3 seconds, and the items
// the worker answers later. A slash command (or a message's "Apps" context menu command) is a message:
// answered "thinking…" (a deferred response) and queued. A press of an approval button is an approval:
// the buttons are taken off the message at once, so nobody presses twice, and the press is queued; a
// press by anyone but the person the run asked is answered to that person alone and queued nowhere.
import { InteractionResponseFlags, InteractionResponseType, InteractionType } from 'discord-interactions';
import type { InboundAttachment, InboundItem, ReceivedDelivery, ReplyAddress } from '../channel-adapter.js';
import { readApprovalPress } from './approval-buttons.js';
import { DISCORD_MESSAGE_MAX_LENGTH, NO_MENTIONS } from './discord-message.js';
import { COMMAND_TYPE, OPTION_TYPE, type TInteraction, type TInteractionAttachment } from './interaction-payload.js';

/** Where replies to an interaction go: its token (valid 15 minutes) opens its webhook. */
export type DiscordAddress = ReplyAddress & { interactionToken: string; channelId: string };

function answer(body: unknown, items: InboundItem[] = []): ReceivedDelivery {
  return { answer: { status: 200, contentType: 'application/json', body: JSON.stringify(body) }, items };
}

/** A message only the person who acted sees. */
function answerPrivately(content: string): ReceivedDelivery {
  return answer({
    type: InteractionResponseType.CHANNEL_MESSAGE_WITH_SOURCE,
    data: { content, flags: InteractionResponseFlags.EPHEMERAL, allowed_mentions: NO_MENTIONS },
  });
}

function attachmentOf(attachment: TInteractionAttachment): InboundAttachment {
  const [major] = (attachment.content_type ?? '').split('/');
  const kind = major === 'image' || major === 'audio' || major === 'video' ? major : 'file';
  return { kind, ref: attachment.url, name: attachment.filename, mimeType: attachment.content_type };
}

/** The command's text and files: the first string option and the attachment options, or the target message. */
function readCommand(data: NonNullable<TInteraction['data']>): { text: string; attachments: InboundAttachment[] } {
  const resolved = data.resolved ?? {};
  if (data.type === COMMAND_TYPE.message && data.target_id !== undefined) {
    const target = resolved.messages?.[data.target_id];
    return { text: target?.content ?? '', attachments: (target?.attachments ?? []).map(attachmentOf) };
  }
  const options = data.options ?? [];
  const text = options.find((option) => option.type === OPTION_TYPE.string && typeof option.value === 'string');
  const attachments = options.flatMap((option) => {
    const file = option.type === OPTION_TYPE.attachment ? resolved.attachments?.[String(option.value)] : undefined;
    return file === undefined ? [] : [attachmentOf(file)];
  });
  return { text: typeof text?.value === 'string' ? text.value : '', attachments };
}

function readPress(interaction: TInteraction, base: Omit<InboundItem, 'kind'>): ReceivedDelivery {
  const press = readApprovalPress(interaction.data?.custom_id ?? '');
  // Another component of the app's: acknowledged, with nothing to do.
  if (press === undefined) return answer({ type: InteractionResponseType.DEFERRED_UPDATE_MESSAGE });
  if (press.requester !== base.sender) {
    return answerPrivately(`Only <@${press.requester}>, who asked, can answer this approval.`);
  }
  const decision = `${press.approved ? 'Approved' : 'Rejected'} by <@${base.sender}>.`;
  const shown = (interaction.message?.content ?? '').slice(0, DISCORD_MESSAGE_MAX_LENGTH - decision.length - 2);
  return answer(
    {
      type: InteractionResponseType.UPDATE_MESSAGE,
      data: { content: `${shown}\n\n${decision}`, components: [], allowed_mentions: NO_MENTIONS },
    },
    [{ ...base, kind: 'approval', interruptId: press.interruptId, approved: press.approved }],
  );
}

/** What a verified interaction of the integration's application is answered, and what it queues. */
export function readInteraction(interaction: TInteraction): ReceivedDelivery {
  if (interaction.type === InteractionType.PING) return answer({ type: InteractionResponseType.PONG });
  if (interaction.type === InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE) {
    return answer({ type: InteractionResponseType.APPLICATION_COMMAND_AUTOCOMPLETE_RESULT, data: { choices: [] } });
  }
  const user = interaction.member?.user ?? interaction.user;
  const channelId = interaction.channel_id ?? interaction.channel?.id;
  if (user === undefined || channelId === undefined || interaction.token === undefined) {
    return answerPrivately('This interaction names no user or channel to answer.');
  }
  // Bots cannot run commands or press buttons today; should that change, the app never answers one.
  if (user.bot === true) return answerPrivately('This app does not answer bots.');
  const address: DiscordAddress = { interactionToken: interaction.token, channelId };
  const base = { providerMessageId: interaction.id, conversation: channelId, sender: user.id, address };
  if (interaction.type === InteractionType.MESSAGE_COMPONENT) return readPress(interaction, base);
  if (interaction.type !== InteractionType.APPLICATION_COMMAND || interaction.data === undefined) {
    return answerPrivately('This app answers its commands and its approval buttons only.');
  }
  const { text, attachments } = readCommand(interaction.data);
  return answer({ type: InteractionResponseType.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE }, [
    // Empty text is content the agent cannot read: the worker answers it with its fixed reply.
    { ...base, kind: 'message', text: text.trim() === '' ? undefined : text, attachments },
  ]);
}
