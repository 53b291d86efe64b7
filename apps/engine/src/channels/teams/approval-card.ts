// The approval message on Teams: an Adaptive Card with Approve and Reject buttons (Action.Submit). A
// press comes back as a message activity whose `value` is the pressed button's data, which names the
// interrupt and the decision; who pressed is the activity's sender, checked by the worker.
import { z } from 'zod';
import type { ApprovalRequest } from '../channel-adapter.js';

const APPROVAL_ACTION = 'agentplane.approval';

const ZApprovalPress = z.looseObject({
  action: z.literal(APPROVAL_ACTION),
  interruptId: z.string().min(1).max(200),
  approved: z.boolean(),
});

/** The interrupt and decision a button press carries; undefined for any other card's submit. */
export function readApprovalPress(value: unknown): { interruptId: string; approved: boolean } | undefined {
  const parsed = ZApprovalPress.safeParse(value);
  return parsed.success ? { interruptId: parsed.data.interruptId, approved: parsed.data.approved } : undefined;
}

const button = (title: string, request: ApprovalRequest, approved: boolean) => ({
  type: 'Action.Submit',
  title,
  style: approved ? 'positive' : 'destructive',
  data: { action: APPROVAL_ACTION, interruptId: request.interruptId, approved },
});

/** The card attachment of the approval message. */
export function approvalCardAttachment(request: ApprovalRequest) {
  return {
    contentType: 'application/vnd.microsoft.card.adaptive',
    content: {
      type: 'AdaptiveCard',
      $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
      version: '1.4',
      body: [
        { type: 'TextBlock', text: `Approve the tool call **${request.toolName}**?`, weight: 'Bolder', wrap: true },
        { type: 'TextBlock', text: request.prompt, wrap: true },
        { type: 'TextBlock', text: 'Only the person who asked can answer.', isSubtle: true, size: 'Small', wrap: true },
      ],
      actions: [button('Approve', request, true), button('Reject', request, false)],
    },
  };
}
