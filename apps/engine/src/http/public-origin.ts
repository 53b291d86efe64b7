// Where clients reach the engine, for the absolute URLs a response names (the MCP endpoint's resource
// metadata, an agent's card).
import type { Request } from 'express';

// A host name or address, and a port: what a Host header holds.
const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/**
 * The origin clients reach the engine at: ENGINE_PUBLIC_URL when set (behind a proxy), else the scheme
 * and Host of the request (without `trust proxy`, X-Forwarded-* headers are not believed).
 */
export function publicOrigin(req: Request, configured: string | undefined): string {
  if (configured !== undefined) return configured;
  // A Host that is no host name, address and port (quotes, slashes…) would break the URLs and headers built on it.
  const host = req.get('host') ?? '';
  return `${req.protocol}://${HOST.test(host) ? host : 'localhost'}`;
}
