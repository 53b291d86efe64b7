// One POST of a delivery, signed per Standard Webhooks (webhook-id, webhook-timestamp,
// webhook-signature) by the standardwebhooks package itself, through the connect-time egress policy:
// every address the tenant's URL resolves to is checked before the socket connects, and redirects are
// not followed (a 3xx is an answer, and not a success).
import type { EgressPolicy } from '@agentplane/server-kit';
import { Webhook } from 'standardwebhooks';
import { describeFetchFailure } from '../egress/describe-fetch-failure.js';

export type SignedRequest = {
  url: string;
  messageId: string;
  body: string;
  /** Every secret that signs: the current one, and a rotated one still in its grace period. */
  secrets: string[];
};

/** How the receiver answered, or why no answer came. */
export type SendResult = { statusCode: number | null; error: string | null; retryAfterMs: number | undefined };

const RECEIVER_USER_AGENT = 'agentplane-webhooks/1';

export function signatureHeader(request: Pick<SignedRequest, 'messageId' | 'body' | 'secrets'>, at: Date): string {
  return request.secrets.map((secret) => new Webhook(secret).sign(request.messageId, at, request.body)).join(' ');
}

/** Retry-After as seconds or an HTTP date, in milliseconds from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export async function sendWebhook(
  egress: EgressPolicy,
  request: SignedRequest,
  { timeoutMs, now }: { timeoutMs: number; now: Date },
): Promise<SendResult> {
  try {
    const response = await egress.fetch(request.url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        'content-type': 'application/json',
        'user-agent': RECEIVER_USER_AGENT,
        'webhook-id': request.messageId,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signatureHeader(request, now),
      },
      body: request.body,
    });
    // The receiver's body is never read or kept: only its status matters.
    await response.body?.cancel().catch(() => undefined);
    return {
      statusCode: response.status,
      error: null,
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), now.getTime()),
    };
  } catch (error) {
    return { statusCode: null, error: describeFetchFailure(error, timeoutMs), retryAfterMs: undefined };
  }
}
