// One call to a Google API (the Chat API, the OAuth token endpoint) through the channels' provider
// call (timeouts, retryable 429/5xx, Retry-After), reading Google's two error bodies, and returning
// the answer's JSON.
import { ChannelApiError } from '../channel-adapter.js';
import { callProvider, type ProviderError } from '../provider-call.js';

type GoogleErrorBody = {
  // The Chat API: { error: { code, message, status } }; the token endpoint: { error, error_description }.
  error?: string | { message?: unknown; status?: unknown };
  error_description?: unknown;
};

async function readGoogleError(response: Response): Promise<ProviderError> {
  const body = (await response.json()) as GoogleErrorBody;
  if (typeof body.error === 'string') {
    const description = typeof body.error_description === 'string' ? `: ${body.error_description}` : '';
    return { message: `${body.error}${description}`.slice(0, 300), code: body.error };
  }
  const message = typeof body.error?.message === 'string' ? body.error.message.slice(0, 300) : response.statusText;
  return { message, code: typeof body.error?.status === 'string' ? body.error.status : undefined };
}

export type GoogleCall = { url: string; method: 'POST' | 'PATCH'; headers: Record<string, string>; body: string };

/** Makes the call and returns its JSON body; `api` names it in errors (never with a secret). */
export async function callGoogleApi(
  api: string,
  call: GoogleCall,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<unknown> {
  const response = await callProvider({
    api,
    url: call.url,
    init: { method: call.method, headers: call.headers, body: call.body },
    timeoutMs,
    signal,
    readError: readGoogleError,
  });
  try {
    return await response.json();
  } catch {
    throw new ChannelApiError(`${api}: the answer is not JSON`, true, response.status);
  }
}
