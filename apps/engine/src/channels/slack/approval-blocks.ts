// The approval message in Block Kit: the prompt, who may answer, and Approve/Reject buttons. Each
// button's value carries the interrupt id and the decision, so a press (a block_actions request,
// signed by Slack like any other) is read back without any state of ours.
import type { Button, KnownBlock } from '@slack/types';
import { z } from 'zod';
import type { ApprovalRequest } from '../channel-adapter.js';

/** The action ids of our buttons: presses of any other button in the workspace are ignored. */
export const APPROVE_ACTION_ID = 'agentplane_approve';
export const REJECT_ACTION_ID = 'agentplane_reject';

// Slack's limits: a section's text holds 3000 characters, a button's value 2000.
const SECTION_TEXT_LIMIT = 3000;

const ZButtonValue = z.strictObject({ interruptId: z.string().min(1).max(1000), approved: z.boolean() });
export type ApprovalDecision = z.infer<typeof ZButtonValue>;

const SLACK_USER_ID = /^[UW][A-Z0-9]{2,30}$/;

function button(actionId: string, label: string, style: 'primary' | 'danger', decision: ApprovalDecision): Button {
  return {
    type: 'button',
    action_id: actionId,
    style,
    text: { type: 'plain_text', text: label },
    value: JSON.stringify(decision),
  };
}

/** The `blocks` of the approval message. Plain text for the prompt: tool arguments mention no one. */
export function approvalBlocks(request: ApprovalRequest): KnownBlock[] {
  const who = SLACK_USER_ID.test(request.requester) ? `<@${request.requester}>` : 'the person who asked';
  return [
    { type: 'section', text: { type: 'plain_text', text: request.prompt.slice(0, SECTION_TEXT_LIMIT) } },
    { type: 'context', elements: [{ type: 'mrkdwn', text: `Only ${who} can approve or reject this.` }] },
    {
      type: 'actions',
      elements: [
        button(APPROVE_ACTION_ID, 'Approve', 'primary', { interruptId: request.interruptId, approved: true }),
        button(REJECT_ACTION_ID, 'Reject', 'danger', { interruptId: request.interruptId, approved: false }),
      ],
    },
  ];
}

/** The decision a button of ours carries; undefined for a value we did not write. */
export function readButtonValue(value: string | undefined): ApprovalDecision | undefined {
  if (value === undefined) return undefined;
  try {
    const parsed = ZButtonValue.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
