// Why a request to a tenant's URL got no answer, in words safe to show the tenant: the egress policy's
// refusal, a timeout, or the transport's own message (never a response body, which may be anything).
import { isEgressRefusal } from '@agentplane/server-kit';

export function describeFetchFailure(error: unknown, timeoutMs: number): string {
  if (isEgressRefusal(error)) {
    let refusal: unknown = error;
    while (refusal instanceof Error && refusal.name !== 'EgressRefusedError') refusal = refusal.cause;
    return refusal instanceof Error ? refusal.message : 'refused by the egress policy';
  }
  // A DOMException, which is not an Error in every realm: told apart by its name.
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return `no answer within ${timeoutMs} ms`;
  }
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const text = cause instanceof Error ? cause.message : String(cause);
  return `could not be sent: ${text}`.slice(0, 500);
}
