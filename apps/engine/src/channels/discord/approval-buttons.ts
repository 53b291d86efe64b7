// The Approve and Reject buttons of an approval message. Each button's custom_id carries the interrupt,
// the decision and who may press it; Discord hands the custom_id back, signed, with each press, and
// people cannot change the custom_ids of the app's own messages, so a press can be read from it alone.
import { type ActionRow, type Button, ButtonStyleTypes, MessageComponentTypes } from 'discord-interactions';
import type { ApprovalRequest } from '../channel-adapter.js';

/** Discord's limit on a component's custom_id. */
export const CUSTOM_ID_MAX_LENGTH = 100;

const PREFIX = 'approval';
const PRESS = /^approval:(approve|reject):([^:]+):(\d{1,25})$/;

export type ApprovalPress = { interruptId: string; approved: boolean; requester: string };

export function approvalCustomId(press: ApprovalPress): string {
  return `${PREFIX}:${press.approved ? 'approve' : 'reject'}:${press.interruptId}:${press.requester}`;
}

/** The press a custom_id stands for; undefined for a custom_id this adapter did not make. */
export function readApprovalPress(customId: string): ApprovalPress | undefined {
  const match = PRESS.exec(customId);
  if (match === null) return undefined;
  return { approved: match[1] === 'approve', interruptId: String(match[2]), requester: String(match[3]) };
}

/** One action row with the two buttons; throws when the interrupt id does not fit in a custom_id. */
export function approvalComponents(request: ApprovalRequest): ActionRow[] {
  const button = (approved: boolean): Button => {
    const customId = approvalCustomId({ interruptId: request.interruptId, approved, requester: request.requester });
    if (customId.length > CUSTOM_ID_MAX_LENGTH) {
      throw new RangeError(`the interrupt id is too long for a Discord custom_id (${customId.length} > 100)`);
    }
    return {
      type: MessageComponentTypes.BUTTON,
      style: approved ? ButtonStyleTypes.SUCCESS : ButtonStyleTypes.DANGER,
      label: approved ? 'Approve' : 'Reject',
      custom_id: customId,
    };
  };
  return [{ type: MessageComponentTypes.ACTION_ROW, components: [button(true), button(false)] }];
}
