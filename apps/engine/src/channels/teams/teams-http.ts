// One call to a Microsoft endpoint (Entra's token endpoint or a Bot Framework connector) through the
// channels' provider call, which classifies failures (timeouts, 429 and 5xx retryable, Retry-After),
// with Microsoft's two error bodies read for the log.
import { callProvider, type ProviderError } from '../provider-call.js';

type ErrorBody = { error?: unknown; error_description?: unknown; message?: unknown; code?: unknown };

// Connectors answer {error: {code, message}}; Entra {error: "invalid_client", error_description}.
async function readMicrosoftError(response: Response): Promise<ProviderError> {
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
  init: Omit<RequestInit, 'signal'>,
  { timeoutMs, signal, what }: { timeoutMs: number; signal: AbortSignal; what: string },
): Promise<unknown> {
  const response = await callProvider({ api: what, url, init, timeoutMs, signal, readError: readMicrosoftError });
  return response.json().catch(() => ({}));
}
