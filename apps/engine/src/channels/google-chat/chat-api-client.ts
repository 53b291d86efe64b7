// Writes to the Chat API as the integration's service account: a message created in a space (in the
// thread it answers, or a new thread when that one is gone) and a message's text replaced (a streamed
// reply). Each call names the app's access token; a 401 drops it, so the retry asks for a new one.
import { ChannelApiError, type ReplyAddress } from '../channel-adapter.js';
import { callGoogleApi } from './call-google-api.js';
import { isMessageName, isSpaceName } from './chat-resource-names.js';

export type ChatApiTarget = {
  apiBaseUrl: string;
  timeoutMs: number;
  accessToken: () => Promise<string>;
  /** Called on a 401: the token was refused, the next call must not reuse it. */
  dropAccessToken: () => void;
};

async function callChatApi(
  target: ChatApiTarget,
  what: string,
  method: 'POST' | 'PATCH',
  path: string,
  body: object,
  signal: AbortSignal,
): Promise<unknown> {
  const headers = {
    Authorization: `Bearer ${await target.accessToken()}`,
    'Content-Type': 'application/json; charset=utf-8',
  };
  try {
    return await callGoogleApi(
      what,
      { url: `${target.apiBaseUrl}${path}`, method, headers, body: JSON.stringify(body) },
      target.timeoutMs,
      signal,
    );
  } catch (error) {
    if (error instanceof ChannelApiError && error.status === 401) {
      target.dropAccessToken();
      // A token that expired early or was revoked: a new one may pass.
      throw new ChannelApiError(error.message, true, 401, error.retryAfterMs, error.providerCode);
    }
    throw error;
  }
}

/** Creates a message in the address's space and thread; returns its resource name. */
export async function createChatMessage(
  target: ChatApiTarget,
  address: ReplyAddress,
  message: { text: string; cardsV2?: unknown[] },
  signal: AbortSignal,
): Promise<string> {
  const space = address.space ?? '';
  if (!isSpaceName(space)) throw new ChannelApiError('the reply address names no Chat space', false, undefined);
  const thread = address.thread === undefined ? {} : { thread: { name: address.thread } };
  const query = address.thread === undefined ? '' : '?messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD';
  const created = await callChatApi(
    target,
    'Chat API spaces.messages.create',
    'POST',
    `/v1/${space}/messages${query}`,
    { ...message, ...thread },
    signal,
  );
  const name = (created as { name?: unknown } | null)?.name;
  if (typeof name !== 'string' || !isMessageName(name)) {
    throw new ChannelApiError('Chat API spaces.messages.create: the answer names no message', false, undefined);
  }
  return name;
}

/** Replaces the text of a message the app created. */
export async function updateChatMessageText(
  target: ChatApiTarget,
  messageName: string,
  text: string,
  signal: AbortSignal,
): Promise<void> {
  if (!isMessageName(messageName)) throw new ChannelApiError('not a Chat message name', false, undefined);
  await callChatApi(
    target,
    'Chat API spaces.messages.patch',
    'PATCH',
    `/v1/${messageName}?updateMask=text`,
    { text },
    signal,
  );
}
