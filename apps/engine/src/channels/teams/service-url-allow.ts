// Which connector hosts replies may go to. The serviceUrl an activity names is signed by the Bot
// Framework, but the engine still calls only the operator's list of hosts: whoever got a token minted
// for their own bot must not make this engine send a tenant's bot token (or anything) to a host they
// chose. A pattern is an origin whose host may start with `*.` for any subdomain.
export type ServiceUrlPattern = { protocol: string; host: string; port: string; anySubdomain: boolean };

export const DEFAULT_SERVICE_URL_ALLOW = 'https://smba.trafficmanager.net,https://*.botframework.com';

/** Reads one pattern such as `https://*.botframework.com`; undefined when it is not one. */
export function parseServiceUrlPattern(text: string): ServiceUrlPattern | undefined {
  const match = /^(https?):\/\/(\*\.)?([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::(\d{1,5}))?\/?$/i.exec(text.trim());
  if (match === null) return undefined;
  const [, protocol = '', wildcard, host = '', port = ''] = match;
  return {
    protocol: `${protocol.toLowerCase()}:`,
    host: host.toLowerCase(),
    port,
    anySubdomain: wildcard !== undefined,
  };
}

function matches(url: URL, pattern: ServiceUrlPattern): boolean {
  if (url.protocol !== pattern.protocol || url.port !== pattern.port) return false;
  const host = url.hostname.toLowerCase();
  return pattern.anySubdomain ? host.endsWith(`.${pattern.host}`) : host === pattern.host;
}

/** The serviceUrl as a URL when it is on an allowed host (and carries no credentials), else undefined. */
export function allowedServiceUrl(serviceUrl: string, allow: ServiceUrlPattern[]): URL | undefined {
  if (!URL.canParse(serviceUrl)) return undefined;
  const url = new URL(serviceUrl);
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return undefined;
  return allow.some((pattern) => matches(url, pattern)) ? url : undefined;
}
