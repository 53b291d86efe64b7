// An agent's engine_url is where a signed-in person's browser sends requests from the console's
// playground. At the manager's own host and port, those would reach the API's routes; the playground
// sends no cookies, and this refusal keeps such a URL from being stored at all. The manager knows itself
// as PUBLIC_URL says and as the request reached it (its Host). Browsers bind cookies to a host, not to a
// scheme, so the scheme is not compared; loopback names and addresses (and 0.0.0.0, which some browsers
// send to this machine) count as one host, since the manager cannot tell which of them it answers on.
import { AppError, literalAddressOf, NO_EGRESS_ALLOWED, refusedRangeOf } from '@agentplane/server-kit';

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };
const THIS_MACHINE = new Set(['loopback', 'unspecified']);

function isThisMachine(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const address = literalAddressOf(host);
  return address !== undefined && THIS_MACHINE.has(refusedRangeOf(address, NO_EGRESS_ALLOWED) ?? '');
}

/** Where a browser would send a URL's cookies, as one comparable text; undefined for what is no URL. */
function cookieScopeOf(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  // WHATWG parsing has lower-cased the host and dropped a default port; a trailing dot names the same host.
  const host = parsed.hostname.replace(/\.+$/, '');
  const port = parsed.port || DEFAULT_PORTS[parsed.protocol] || '';
  return `${isThisMachine(host) ? 'this machine' : host}:${port}`;
}

/** A 422 naming engine_url when it points at one of the manager's own origins. */
export function refuseManagerOrigin(engineUrl: string | null | undefined, managerOrigins: readonly string[]): void {
  if (engineUrl == null) return;
  const scope = cookieScopeOf(engineUrl);
  if (scope === undefined || !managerOrigins.some((origin) => cookieScopeOf(origin) === scope)) return;
  throw new AppError('validation_failed', "An agent's engine cannot be the manager itself.", {
    errors: [
      {
        path: 'engine_url',
        message: "Must not be the manager's own origin: name the agent's engine, which answers /agent/run",
      },
    ],
  });
}
