// The Approve/Reject message of a tool call waiting for a human, as a Chat card (cardsV2): each
// button's action names our function and carries the interrupt id and the decision, which come back
// in the CARD_CLICKED event (read-chat-event.ts) with the presser's user name.
import type { ApprovalRequest } from '../channel-adapter.js';

export const APPROVAL_FUNCTION = 'agentplane.approval';
export const INTERRUPT_ID_PARAMETER = 'interruptId';
export const DECISION_PARAMETER = 'decision';
export type ApprovalDecision = 'approve' | 'reject';

const button = (label: string, interruptId: string, decision: ApprovalDecision) => ({
  text: label,
  onClick: {
    action: {
      function: APPROVAL_FUNCTION,
      parameters: [
        { key: INTERRUPT_ID_PARAMETER, value: interruptId },
        { key: DECISION_PARAMETER, value: decision },
      ],
    },
  },
});

// A card's text paragraph reads a few HTML tags: the prompt (tool arguments, the model's words) is shown as text.
const escapeCardText = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/**
 * The message body: the text mentions the person who may answer (a `<users/…>` mention notifies them),
 * the card shows the prompt and the buttons.
 */
export function approvalMessage(request: ApprovalRequest) {
  return {
    text: `<${request.requester}>, a tool call waits for your approval.`,
    cardsV2: [
      {
        cardId: `approval-${request.interruptId}`,
        card: {
          header: { title: 'Approval needed', subtitle: request.toolName },
          sections: [
            {
              widgets: [
                { textParagraph: { text: escapeCardText(request.prompt) } },
                {
                  buttonList: {
                    buttons: [
                      button('Approve', request.interruptId, 'approve'),
                      button('Reject', request.interruptId, 'reject'),
                    ],
                  },
                },
              ],
            },
          ],
        },
      },
    ],
  };
}
