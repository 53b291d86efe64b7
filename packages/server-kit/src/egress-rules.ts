// Which addresses a tenant-chosen URL may reach: global unicast only, unless the operator allows a
// host or a range. The one classification behind the manager's write-time check (literal addresses)
// and the engine's connect-time check (every address it actually connects to).
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export type EgressAllowList = {
  /** Host names the operator trusts whatever they resolve to (lower case, no trailing dot). */
  hosts: ReadonlySet<string>;
  ranges: readonly [Address, number][];
};

/** What tests and the bench allow: their own loopback peers (`pnpm start` allows none unless told). */
export const LOOPBACK_EGRESS_ALLOW = '127.0.0.0/8,::1';

// ipaddr.js calls the deprecated IPv4-compatible block (::a.b.c.d written in hex) plain unicast,
// yet it embeds an IPv4 address; the mapped form (::ffff:a.b.c.d) is unwrapped by ipaddr.process.
const ALSO_REFUSED: [string, [Address, number]][] = [['ipv4Compatible', ipaddr.parseCIDR('::/96')]];

const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}

/** The address in a URL hostname, when it is a literal one (`10.0.0.1`, `[::1]`); undefined for a name. */
export function literalAddressOf(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : bare;
}

function parseEntry(entry: string): { host: string } | { range: [Address, number] } | undefined {
  try {
    if (entry.includes('/')) return { range: ipaddr.parseCIDR(entry) };
    const literal = literalAddressOf(entry);
    if (literal !== undefined) {
      const address = ipaddr.process(literal);
      return { range: [address, address.kind() === 'ipv4' ? 32 : 128] };
    }
  } catch {
    return undefined;
  }
  const host = normalizeHost(entry);
  return HOST_NAME.test(host) ? { host } : undefined;
}

/** `ENGINE_EGRESS_ALLOW` / `EGRESS_ALLOW`: comma-separated host names, addresses and CIDR ranges. */
export const ZEgressAllowList = z.string().transform((value, ctx): EgressAllowList => {
  const hosts = new Set<string>();
  const ranges: [Address, number][] = [];
  for (const entry of value.split(',').map((item) => item.trim())) {
    if (entry === '') continue;
    const parsed = parseEntry(entry);
    if (parsed === undefined) {
      ctx.addIssue({ code: 'custom', message: `"${entry}" is not a host name, an IP address or a CIDR range` });
    } else if ('host' in parsed) {
      hosts.add(parsed.host);
    } else {
      ranges.push(parsed.range);
    }
  }
  return { hosts, ranges };
});

/** The list as ENGINE_EGRESS_ALLOW would write it, for a thread of its own to parse back (ranges do not cross as objects). */
export function formatEgressAllowList(allow: EgressAllowList): string {
  return [...allow.hosts, ...allow.ranges.map(([base, bits]) => `${base.toString()}/${bits}`)].join(',');
}

export const NO_EGRESS_ALLOWED: EgressAllowList = { hosts: new Set(), ranges: [] };

export function isAllowedHost(host: string, allow: EgressAllowList): boolean {
  return allow.hosts.has(normalizeHost(host));
}

/**
 * The name of the refused range `address` is in ("loopback", "private", "linkLocal", "uniqueLocal"…),
 * or undefined when it may be reached: global unicast, or inside a range the operator allowed.
 * IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is judged as the IPv4 address it carries.
 */
export function refusedRangeOf(address: string, allow: EgressAllowList): string | undefined {
  const parsed = ipaddr.process(address);
  if (allow.ranges.some(([base, bits]) => base.kind() === parsed.kind() && parsed.match(base, bits))) return undefined;
  const range = parsed.range();
  if (range !== 'unicast') return range;
  return ALSO_REFUSED.find(([, [base, bits]]) => base.kind() === parsed.kind() && parsed.match(base, bits))?.[0];
}
