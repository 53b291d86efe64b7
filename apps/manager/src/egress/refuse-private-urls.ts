// The write-time half of the egress rule: a tenant URL whose host is a literal address in a refused
// range (loopback, private, link-local, metadata…) is a 422 naming the field, so the tenant learns at
// once. Host names are not resolved here: the engine checks every address it actually connects to.
import {
  AppError,
  type EgressAllowList,
  type FieldError,
  literalAddressOf,
  refusedRangeOf,
} from '@agentplane/server-kit';

// Named in the 422 itself, so that a developer with a local MCP server or model knows what to set.
const EGRESS_ALLOW_HINT = 'the operator can allow it with EGRESS_ALLOW (and ENGINE_EGRESS_ALLOW on the engines)';

/** A URL field of a request body, with its path as problem+json `errors` name it. */
export type TenantUrl = { path: string; url: string | undefined };

function findRefusedAddress(url: string, allow: EgressAllowList): FieldError['message'] | undefined {
  if (!URL.canParse(url)) return undefined;
  const address = literalAddressOf(new URL(url).hostname);
  const range = address === undefined ? undefined : refusedRangeOf(address, allow);
  if (range === undefined) return undefined;
  return `${address} is a ${range} address, which agents may not reach; ${EGRESS_ALLOW_HINT}`;
}

export function refusePrivateUrls(urls: readonly TenantUrl[], allow: EgressAllowList): void {
  const errors: FieldError[] = [];
  for (const { path, url } of urls) {
    const message = url === undefined ? undefined : findRefusedAddress(url, allow);
    if (message !== undefined) errors.push({ path, message });
  }
  if (errors.length > 0) {
    throw new AppError(
      'validation_failed',
      `The request body names an address agents may not reach; ${EGRESS_ALLOW_HINT}.`,
      { errors },
    );
  }
}
