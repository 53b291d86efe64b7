// One HTTP call to a Google API (the Chat API, the OAuth token endpoint), its failure told apart the
// way the queue retries: a 429, a 5xx, a timeout or an unreachable host may pass on a retry (after
// Retry-After, when Google says); any other 4xx will not.

import { parseRetryAfter } from '../../whatsapp/graph-client.js';
import { ChannelApiError } from '../channel-adapter.js';

type GoogleErrorBody = {
  // The Chat API: { error: { code, message, status } }; the token endpoint: { error, error_description }.
  error?: string | { message?: unknown; status?: unknown };
  error_description?: unknown;
};

async function readGoogleError(response: Response): Promise<{ message: string; code: string | undefined }> {
  try {
    const body = (await response.json()) as GoogleErrorBody;
    if (typeof body.error === 'string') {
      const description = typeof body.error_description === 'string' ? `: ${body.error_description}` : '';
      return { message: `${body.error}${description}`.slice(0, 300), code: body.error };
    }
    const message = typeof body.error?.message === 'string' ? body.error.message.slice(0, 300) : response.statusText;
    return { message, code: typeof body.error?.status === 'string' ? body.error.status : undefined };
  } catch {
    return { message: response.statusText, code: undefined };
  }
}

export type GoogleCall = { url: string; method: 'POST' | 'PATCH'; headers: Record<string, string>; body: string };

/** Makes the call and returns its JSON body; `what` names it in errors (never with a secret). */
export async function callGoogleApi(
  what: string,
  call: GoogleCall,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(call.url, {
      method: call.method,
      headers: call.headers,
      body: call.body,
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
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
  if (!response.ok) {
    const { message, code } = await readGoogleError(response);
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
  try {
    return await response.json();
  } catch {
    throw new ChannelApiError(`${what}: the answer is not JSON`, true, response.status);
  }
}
