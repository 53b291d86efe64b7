// One HTTP call to a provider's API, with the failures every adapter classifies alike: no answer
// within the timeout or no connection is retryable; an HTTP error is retryable when it is a 5xx or a
// 429, and says how long to wait when the provider sent Retry-After. The adapter reads its own error
// bodies (Slack's `error`, Telegram's `description`, Graph's `error.message`).
import { ChannelApiError } from './channel-adapter.js';
import { parseRetryAfter } from './retry-after.js';

export type ProviderError = {
  message: string;
  code?: string | number | undefined;
  /** The provider's own retry hint (Telegram's parameters.retry_after), when it has one besides the header. */
  retryAfterMs?: number | undefined;
};

export type ProviderCall = {
  /** The API's name, at the head of every error message ("Graph API", "Slack API"). */
  api: string;
  url: string;
  init: Omit<RequestInit, 'signal'>;
  timeoutMs: number;
  signal: AbortSignal;
  /** Reads the provider's error body; the status text when absent. */
  readError?: (response: Response) => Promise<ProviderError>;
};

const statusTextOf = async (response: Response): Promise<ProviderError> => {
  await response.body?.cancel();
  return { message: response.statusText };
};

/** The response when it is a 2xx; a ChannelApiError otherwise. An abort of `signal` is thrown as it came. */
export async function callProvider({ api, url, init, timeoutMs, signal, readError }: ProviderCall): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
  } catch (error) {
    if (signal.aborted) throw error;
    // By name: the DOMException may come from another realm than this module's Error.
    const timedOut = (error as { name?: unknown } | undefined)?.name === 'TimeoutError';
    throw new ChannelApiError(
      `${api} ${timedOut ? `no answer within ${timeoutMs} ms` : 'unreachable'}`,
      true,
      undefined,
    );
  }
  if (response.ok) return response;
  const read = await (readError ?? statusTextOf)(response).catch(
    () => ({ message: response.statusText }) as ProviderError,
  );
  const retryable = response.status >= 500 || response.status === 429;
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after')) ?? read.retryAfterMs;
  throw new ChannelApiError(
    `${api} HTTP ${response.status}: ${read.message}`,
    retryable,
    response.status,
    retryAfterMs,
    read.code,
  );
}
