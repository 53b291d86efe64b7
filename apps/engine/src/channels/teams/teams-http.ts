// One call to a Microsoft endpoint (Entra's token endpoint or a Bot Framework connector), its failures
// as ChannelApiError: a timeout, a network error, a 429 or a 5xx may pass on retry (honouring
// Retry-After); any other 4xx (a bad secret, a conversation the bot is not in) will not.
import { parseRetryAfter } from '../../whatsapp/graph-client.js';
import { ChannelApiError } from '../channel-adapter.js';

type ErrorBody = { error?: unknown; error_description?: unknown; message?: unknown; code?: unknown };

// Connectors answer {error: {code, message}}; Entra {error: "invalid_client", error_description}.
async function readError(response: Response): Promise<{ message: string; code: string | undefined }> {
  const body = (await response.json().catch(() => ({}))) as ErrorBody;
  const nested = typeof body.error === 'object' && body.error !== null ? (body.error as ErrorBody) : undefined;
  const code = typeof body.error === 'string' ? body.error : nested?.code;
  const message = [nested?.message, body.error_description, body.message].find((value) => typeof value === 'string');
  return {
    message: typeof message === 'string' ? message.slice(0, 300) : response.statusText,
    code: typeof code === 'string' ? code.slice(0, 100) : undefined,
  };
}

/** Sends the request and returns the parsed JSON answer of a 2xx; anything else throws ChannelApiError. */
export async function callMicrosoft(
  url: string,
  init: RequestInit,
  { timeoutMs, signal, what }: { timeoutMs: number; signal: AbortSignal; what: string },
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
  } catch (error) {
    if (signal.aborted) throw error;
    // By name: the DOMException may come from another realm than this module's Error.
    const timedOut = (error as { name?: unknown } | undefined)?.name === 'TimeoutError';
    throw new ChannelApiError(
      `${what}: ${timedOut ? `no answer within ${timeoutMs} ms` : 'unreachable'}`,
      true,
      undefined,
    );
  }
  if (response.ok) return response.json().catch(() => ({}));
  const { message, code } = await readError(response);
  const retryable = response.status >= 500 || response.status === 429;
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
  throw new ChannelApiError(
    `${what}: HTTP ${response.status}: ${message}`,
    retryable,
    response.status,
    retryAfterMs,
    code,
  );
}
