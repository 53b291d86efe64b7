// One call to Discord's HTTP API. Failures become ChannelApiError: a 429, a 5xx, a timeout or a network
// error can be retried, any other 4xx (an expired interaction token, an unknown message) cannot. A 429
// says how long to wait twice, as `retry_after` (seconds, fractional) in the body and as Retry-After
// (whole seconds): the longer of the two is the floor of the retry's delay.
import type { DiscordSettings } from '../../env.js';
import { parseRetryAfter } from '../../whatsapp/graph-client.js';
import { ChannelApiError } from '../channel-adapter.js';

// Discord asks API clients to name themselves so; a request without it may be refused by its edge.
const USER_AGENT = 'DiscordBot (https://github.com/agentplane/agentplane, 0.1.0)';

/** Discord's JSON error codes the adapter acts on. */
export const DISCORD_ERROR = {
  unknownMessage: 10008,
  unknownWebhook: 10015,
  invalidWebhookToken: 50027,
} as const;

export type DiscordCall = {
  method: 'GET' | 'POST' | 'PATCH';
  /** After the base URL, from `/`; path parameters already encoded. */
  path: string;
  body?: unknown;
  signal: AbortSignal;
};

type DiscordErrorBody = { message?: unknown; code?: unknown; retry_after?: unknown };

async function readErrorBody(response: Response): Promise<DiscordErrorBody> {
  try {
    const body: unknown = await response.json();
    return typeof body === 'object' && body !== null ? (body as DiscordErrorBody) : {};
  } catch {
    return {};
  }
}

function retryAfterMs(response: Response, body: DiscordErrorBody): number | undefined {
  const fromHeader = parseRetryAfter(response.headers.get('retry-after'));
  const fromBody =
    typeof body.retry_after === 'number' && Number.isFinite(body.retry_after) && body.retry_after >= 0
      ? Math.ceil(body.retry_after * 1000)
      : undefined;
  if (fromHeader === undefined) return fromBody;
  return Math.max(fromHeader, fromBody ?? 0);
}

async function failure(response: Response): Promise<ChannelApiError> {
  const body = await readErrorBody(response);
  const code = typeof body.code === 'number' ? body.code : undefined;
  const detail = typeof body.message === 'string' ? body.message.slice(0, 300) : response.statusText;
  const message =
    code === DISCORD_ERROR.invalidWebhookToken
      ? `HTTP ${response.status}: the interaction token has expired (Discord keeps it 15 minutes)`
      : `HTTP ${response.status}: ${detail}`;
  const retryable = response.status === 429 || response.status >= 500;
  return new ChannelApiError(message, retryable, response.status, retryAfterMs(response, body), code);
}

/** Sends the call and returns the JSON it answered; throws ChannelApiError on any failure. */
export async function callDiscord(settings: DiscordSettings, call: DiscordCall): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${settings.apiBaseUrl}${call.path}`, {
      method: call.method,
      headers: {
        'User-Agent': USER_AGENT,
        ...(call.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal: AbortSignal.any([call.signal, AbortSignal.timeout(settings.timeoutMs)]),
    });
  } catch (error) {
    if (call.signal.aborted) throw error;
    // By name: the DOMException may come from another realm than this module's Error.
    const timedOut = (error as { name?: unknown } | undefined)?.name === 'TimeoutError';
    throw new ChannelApiError(timedOut ? `no answer within ${settings.timeoutMs} ms` : 'unreachable', true, undefined);
  }
  if (!response.ok) throw await failure(response);
  try {
    return await response.json();
  } catch {
    throw new ChannelApiError(`HTTP ${response.status}: the answer is not JSON`, true, response.status);
  }
}
