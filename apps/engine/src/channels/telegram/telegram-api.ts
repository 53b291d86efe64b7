// Calls to the Telegram Bot API through grammY's `Api` client (typed methods in step with the Bot API,
// the request URL built from the operator's base URL, Telegram's `{ok:false, error_code, parameters}`
// envelope read into a GrammyError), with every failure turned into the ChannelApiError the worker
// retries on. The bot token is part of each request URL, so no error keeps the underlying fetch error
// (whose message names that URL): grammY's own messages leave it out.
import { Api, GrammyError, HttpError } from 'grammy';
import { ChannelApiError } from '../channel-adapter.js';

export type TelegramApiSettings = {
  /** TELEGRAM_API_BASE_URL without a trailing slash, e.g. https://api.telegram.org. */
  apiBaseUrl: string;
  /** One call's timeout; a timeout is retried. */
  apiTimeoutMs: number;
};

export function createTelegramApi(settings: TelegramApiSettings, botToken: string): Api {
  return new Api(botToken, { apiRoot: settings.apiBaseUrl, timeoutSeconds: settings.apiTimeoutMs / 1000 });
}

/**
 * A 429 or a 5xx can pass; any other answer (a revoked token, a chat the bot was removed from, a
 * message too long) fails the same way again. Telegram says how long to wait in
 * `parameters.retry_after` (seconds), the same figure as its Retry-After header.
 */
function toChannelApiError(method: string, error: unknown): ChannelApiError {
  if (error instanceof GrammyError) {
    const retryAfter = error.parameters.retry_after;
    return new ChannelApiError(
      `Telegram ${method}: ${error.error_code} ${error.description.slice(0, 300)}`,
      error.error_code === 429 || error.error_code >= 500,
      error.error_code,
      retryAfter === undefined ? undefined : retryAfter * 1000,
      error.error_code,
    );
  }
  // A timeout, a refused connection, or an answer that is not the Bot API's JSON (a proxy's 502 page).
  const reason = error instanceof HttpError ? error.message : 'the call failed';
  return new ChannelApiError(`Telegram ${method}: ${reason}`, true, undefined);
}

// grammY's Node build types signals as the abort-controller package's; at run time it takes any
// AbortSignal (it only listens for 'abort'), so the platform's is passed through as that type.
type GrammySignal = Parameters<Api['getMe']>[0];

/** Runs one Bot API call; an abort by the caller is rethrown as is, anything else as a ChannelApiError. */
export async function callTelegram<T>(
  method: string,
  signal: AbortSignal | undefined,
  call: (signal: GrammySignal) => Promise<T>,
): Promise<T> {
  try {
    return await call(signal as GrammySignal);
  } catch (error) {
    if (signal?.aborted === true) throw signal.reason;
    throw toChannelApiError(method, error);
  }
}
