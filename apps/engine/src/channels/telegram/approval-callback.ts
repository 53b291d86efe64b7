// What an approval button carries back in its callback_data: the decision and the interrupt id, as
// `ap:y:<id>` or `ap:n:<id>`. Telegram caps callback_data at 64 bytes, which leaves 59 for the id (an
// engine interrupt id is a 36-character UUID). Who pressed is not in it: Telegram says that, and the
// worker decides whether that person may answer.
import { ChannelApiError } from '../channel-adapter.js';

const CALLBACK_DATA_MAX_BYTES = 64;
const PATTERN = /^ap:([yn]):(.+)$/s;

export type ApprovalDecision = { interruptId: string; approved: boolean };

export function encodeApprovalCallback(decision: ApprovalDecision): string {
  const data = `ap:${decision.approved ? 'y' : 'n'}:${decision.interruptId}`;
  if (Buffer.byteLength(data) > CALLBACK_DATA_MAX_BYTES) {
    throw new ChannelApiError(
      `The interrupt id is too long for a Telegram button (callback_data holds ${CALLBACK_DATA_MAX_BYTES} bytes)`,
      false,
      undefined,
    );
  }
  return data;
}

/** undefined for data no approval button of ours sent (another bot's keyboard, a stale format). */
export function decodeApprovalCallback(data: string): ApprovalDecision | undefined {
  const match = PATTERN.exec(data);
  if (match === null) return undefined;
  return { approved: match[1] === 'y', interruptId: match[2] as string };
}
