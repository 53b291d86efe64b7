// Calls Slack's Web API through @slack/web-api's WebClient, at the operator's base URL, and turns its
// failures into ChannelApiError. The client's own retries are off: a failed call fails the queue item's
// attempt, and the queue retries it with its backoff and Slack's Retry-After, under its lease.
import {
  ErrorCode,
  type Logger,
  LogLevel,
  type WebAPIHTTPError,
  type WebAPIPlatformError,
  type WebAPIRateLimitedError,
  WebClient,
} from '@slack/web-api';
import { ChannelApiError } from '../channel-adapter.js';
import { parseRetryAfter } from '../retry-after.js';

export type SlackApiTarget = {
  /** Ends in a slash: the client appends the method name (SLACK_API_BASE_URL). */
  baseUrl: string;
  timeoutMs: number;
  botToken: string;
};

// Slack's `error` codes that say "try again later" on an HTTP 200.
const RETRYABLE_PLATFORM_ERRORS = new Set([
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

// The client logs requests and warnings of its own; ours are the worker's, which says what failed.
const QUIET: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => LogLevel.ERROR,
  setName: () => {},
};

/** A client for one call: `signal` (the caller's, or the call's timeout) ends its request. */
function slackClient(target: SlackApiTarget, signal: AbortSignal): WebClient {
  return new WebClient(target.botToken, {
    slackApiUrl: target.baseUrl,
    logger: QUIET,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    fetch: (url, init) => fetch(url, { ...init, signal }),
  });
}

function fromCodedError(
  error: { code?: unknown },
  timeout: AbortSignal,
  timeoutMs: number,
): ChannelApiError | undefined {
  switch (error.code) {
    case ErrorCode.RateLimitedError: {
      const { retryAfter } = error as WebAPIRateLimitedError;
      return new ChannelApiError('rate limited', true, 429, retryAfter * 1000, 'ratelimited');
    }
    case ErrorCode.HTTPError: {
      const { statusCode, statusMessage, headers } = error as WebAPIHTTPError;
      const retryAfterMs = parseRetryAfter(headers['retry-after']);
      return new ChannelApiError(`HTTP ${statusCode}: ${statusMessage}`, statusCode >= 500, statusCode, retryAfterMs);
    }
    case ErrorCode.PlatformError: {
      const { data } = error as WebAPIPlatformError;
      const retryAfterS = data.response_metadata?.retryAfter;
      return new ChannelApiError(
        `Slack answered ${data.error}`,
        RETRYABLE_PLATFORM_ERRORS.has(data.error),
        200,
        retryAfterS === undefined ? undefined : retryAfterS * 1000,
        data.error,
      );
    }
    case ErrorCode.RequestError: {
      // Told by our own timer: the client rewraps the fetch error, losing its name in another realm.
      return new ChannelApiError(timeout.aborted ? `no answer within ${timeoutMs} ms` : 'unreachable', true, undefined);
    }
    default:
      return undefined;
  }
}

/**
 * Runs one Web API call. The caller's abort is rethrown as is (it is no failure of Slack's); anything
 * else is a ChannelApiError.
 */
export async function callSlack<T>(
  target: SlackApiTarget,
  signal: AbortSignal,
  call: (client: WebClient) => Promise<T>,
): Promise<T> {
  const timeout = AbortSignal.timeout(target.timeoutMs);
  try {
    return await call(slackClient(target, AbortSignal.any([signal, timeout])));
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    const known =
      typeof error === 'object' && error !== null ? fromCodedError(error, timeout, target.timeoutMs) : undefined;
    if (known !== undefined) throw known;
    // The client's own errors (a 429 without a readable Retry-After): worth another attempt later.
    throw new ChannelApiError(
      error instanceof Error ? error.message.slice(0, 300) : 'Slack call failed',
      true,
      undefined,
    );
  }
}
