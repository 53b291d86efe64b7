// Sends text messages through the WhatsApp Cloud API (Graph API). Failures say whether a retry can
// help: 4xx (a bad token, a bad recipient) cannot, except 429; 5xx, timeouts and network errors can.
// A 429 or 503 may say when to come back (Retry-After): the retry waits at least that long.
export type GraphTarget = {
  baseUrl: string;
  apiVersion: string;
  phoneNumberId: string;
  accessToken: string;
  timeoutMs: number;
};

export class GraphError extends Error {
  override name = 'GraphError';
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status: number | undefined,
    readonly graphCode: number | undefined,
    /** How long Graph asked us to wait (Retry-After), when it said. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

type GraphErrorBody = { error?: { message?: unknown; code?: unknown; type?: unknown } };

async function readGraphError(response: Response): Promise<{ message: string; code: number | undefined }> {
  try {
    const body = (await response.json()) as GraphErrorBody;
    const code = typeof body.error?.code === 'number' ? body.error.code : undefined;
    const message = typeof body.error?.message === 'string' ? body.error.message.slice(0, 300) : response.statusText;
    return { message, code };
  } catch {
    return { message: response.statusText, code: undefined };
  }
}

/** Retry-After as delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(at - now, 0);
}

export async function sendWhatsAppText(
  target: GraphTarget,
  to: string,
  body: string,
  signal: AbortSignal,
): Promise<void> {
  const url = `${target.baseUrl}/${target.apiVersion}/${encodeURIComponent(target.phoneNumberId)}/messages`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${target.accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to,
        type: 'text',
        text: { preview_url: false, body },
      }),
      signal: AbortSignal.any([signal, AbortSignal.timeout(target.timeoutMs)]),
    });
  } catch (error) {
    if (signal.aborted) throw error;
    // By name: the DOMException may come from another realm than this module's Error.
    const timedOut = (error as { name?: unknown } | undefined)?.name === 'TimeoutError';
    throw new GraphError(
      timedOut ? `no answer within ${target.timeoutMs} ms` : 'unreachable',
      true,
      undefined,
      undefined,
    );
  }
  if (response.ok) {
    await response.body?.cancel();
    return;
  }
  const { message, code } = await readGraphError(response);
  const retryable = response.status >= 500 || response.status === 429;
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
  throw new GraphError(`HTTP ${response.status}: ${message}`, retryable, response.status, code, retryAfterMs);
}
