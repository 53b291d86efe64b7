// Sends text messages through the WhatsApp Cloud API (Graph API). Failures (ChannelApiError) say
// whether a retry can help: 4xx (a bad token, a bad recipient) cannot, except 429; 5xx, timeouts and
// network errors can. A 429 or 503 may say when to come back (Retry-After): the retry waits at least that long.
import { callProvider, type ProviderError } from '../channels/provider-call.js';

export type GraphTarget = {
  baseUrl: string;
  apiVersion: string;
  phoneNumberId: string;
  accessToken: string;
  timeoutMs: number;
};

/** The sent message's id (`messages[0].id`); empty when Graph's answer does not say. */
async function readMessageId(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { messages?: { id?: unknown }[] };
    const id = body.messages?.[0]?.id;
    return typeof id === 'string' ? id : '';
  } catch {
    return '';
  }
}

type GraphErrorBody = { error?: { message?: unknown; code?: unknown; type?: unknown } };

async function readGraphError(response: Response): Promise<ProviderError> {
  const body = (await response.json()) as GraphErrorBody;
  const code = typeof body.error?.code === 'number' ? body.error.code : undefined;
  const message = typeof body.error?.message === 'string' ? body.error.message.slice(0, 300) : response.statusText;
  return { message, code };
}

/** Sends `body` to `to`; returns the message's id on WhatsApp. */
export async function sendWhatsAppText(
  target: GraphTarget,
  to: string,
  body: string,
  signal: AbortSignal,
): Promise<string> {
  const response = await callProvider({
    api: 'Graph API',
    url: `${target.baseUrl}/${target.apiVersion}/${encodeURIComponent(target.phoneNumberId)}/messages`,
    init: {
      method: 'POST',
      headers: { Authorization: `Bearer ${target.accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to,
        type: 'text',
        text: { preview_url: false, body },
      }),
    },
    timeoutMs: target.timeoutMs,
    signal,
    readError: readGraphError,
  });
  return readMessageId(response);
}
