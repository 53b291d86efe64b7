// One call to Discord's HTTP API, through the channels' provider call (timeouts, retryable statuses,
// Retry-After). Discord's error body names its own code, and says how long a 429 should wait again as
// `retry_after` (fractional seconds), used when Retry-After is absent.
import type { DiscordSettings } from '../../env.js';
import { ChannelApiError } from '../channel-adapter.js';
import { callProvider, type ProviderError } from '../provider-call.js';

// Discord asks API clients to name themselves so; a request without it may be refused by its edge.
const USER_AGENT = 'DiscordBot (https://github.com/agentplane/agentplane, 0.1.0)';

/** Discord's JSON error codes the adapter acts on. */
export const DISCORD_ERROR = {
  unknownMessage: 10008,
  invalidWebhookToken: 50027,
} as const;

export type DiscordCall = {
  method: 'GET' | 'POST' | 'PATCH';
  /** After the base URL, from `/`; path parameters already encoded. */
  path: string;
  body?: unknown;
  signal: AbortSignal;
};

async function readDiscordError(response: Response): Promise<ProviderError> {
  const body = (await response.json()) as { message?: unknown; code?: unknown; retry_after?: unknown } | null;
  const code = typeof body?.code === 'number' ? body.code : undefined;
  const retryAfter = body?.retry_after;
  return {
    message:
      code === DISCORD_ERROR.invalidWebhookToken
        ? 'the interaction token has expired (Discord keeps it 15 minutes)'
        : typeof body?.message === 'string'
          ? body.message.slice(0, 300)
          : response.statusText,
    code,
    retryAfterMs:
      typeof retryAfter === 'number' && Number.isFinite(retryAfter) && retryAfter >= 0
        ? Math.ceil(retryAfter * 1000)
        : undefined,
  };
}

/** Sends the call and returns the JSON it answered; throws ChannelApiError on any failure. */
export async function callDiscord(settings: DiscordSettings, call: DiscordCall): Promise<unknown> {
  const response = await callProvider({
    api: 'Discord API',
    url: `${settings.apiBaseUrl}${call.path}`,
    init: {
      method: call.method,
      headers: {
        'User-Agent': USER_AGENT,
        ...(call.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    },
    timeoutMs: settings.timeoutMs,
    signal: call.signal,
    readError: readDiscordError,
  });
  try {
    return await response.json();
  } catch {
    throw new ChannelApiError(`Discord API HTTP ${response.status}: the answer is not JSON`, true, response.status);
  }
}
