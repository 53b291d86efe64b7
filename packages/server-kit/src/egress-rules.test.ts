import { describe, expect, it } from '@jest/globals';
import {
  formatEgressAllowList,
  literalAddressOf,
  NO_EGRESS_ALLOWED,
  refusedRangeOf,
  ZEgressAllowList,
} from './egress-rules.js';

const allowing = (value: string) => ZEgressAllowList.parse(value);

describe('refusedRangeOf', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    // IPv4 inside IPv6: mapped, compatible (hex), NAT64 and 6to4 forms
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:a00:1', 'private'],
    ['::ffff:a9fe:a9fe', 'linkLocal'],
    ['::7f00:1', 'ipv4Compatible'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['2002:7f00:1::', '6to4'],
  ])('refuses %s (%s)', (address, range) => {
    expect(refusedRangeOf(address, NO_EGRESS_ALLOWED)).toBe(range);
  });

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111'])('lets the public address %s through', (address) => {
    expect(refusedRangeOf(address, NO_EGRESS_ALLOWED)).toBeUndefined();
  });

  it('lets through what the operator allowed, in either notation of the address', () => {
    const allow = allowing('127.0.0.0/8, ::1, 10.1.2.3');
    expect(refusedRangeOf('127.0.0.1', allow)).toBeUndefined();
    expect(refusedRangeOf('::ffff:127.0.0.1', allow)).toBeUndefined();
    expect(refusedRangeOf('::1', allow)).toBeUndefined();
    expect(refusedRangeOf('10.1.2.3', allow)).toBeUndefined();
    expect(refusedRangeOf('10.1.2.4', allow)).toBe('private');
    expect(refusedRangeOf('169.254.169.254', allow)).toBe('linkLocal');
  });
});

describe('ZEgressAllowList', () => {
  it('reads host names, addresses and CIDR ranges', () => {
    const allow = allowing(' Ollama.Internal. , 10.0.0.0/8,[fd00::1], mcp_tools ,');
    expect([...allow.hosts]).toEqual(['ollama.internal', 'mcp_tools']);
    expect(allow.ranges.map(([address, bits]) => `${address.toString()}/${bits}`)).toEqual([
      '10.0.0.0/8',
      'fd00::1/128',
    ]);
  });

  it('names each entry it cannot read', () => {
    const result = ZEgressAllowList.safeParse('10.0.0.0/33,not a host,ok.example');
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      '"10.0.0.0/33" is not a host name, an IP address or a CIDR range',
      '"not a host" is not a host name, an IP address or a CIDR range',
    ]);
  });
});

describe('formatEgressAllowList', () => {
  it('writes a list that parses back to the same hosts and ranges', () => {
    const allow = allowing('ollama.internal,10.0.0.0/8,[fd00::1],::ffff:192.168.1.7,127.0.0.0/8');
    const again = allowing(formatEgressAllowList(allow));
    expect([...again.hosts]).toEqual(['ollama.internal']);
    expect(again.ranges.map(([address, bits]) => `${address.toString()}/${bits}`)).toEqual([
      '10.0.0.0/8',
      'fd00::1/128',
      '192.168.1.7/32',
      '127.0.0.0/8',
    ]);
    expect(formatEgressAllowList(NO_EGRESS_ALLOWED)).toBe('');
  });
});

describe('literalAddressOf', () => {
  it('finds the address in a URL hostname and nothing in a name', () => {
    expect(literalAddressOf(new URL('http://[::ffff:127.0.0.1]:8080/').hostname)).toBe('::ffff:7f00:1');
    expect(literalAddressOf(new URL('http://2130706433/').hostname)).toBe('127.0.0.1');
    expect(literalAddressOf('10.0.0.1')).toBe('10.0.0.1');
    expect(literalAddressOf('localhost')).toBeUndefined();
    expect(literalAddressOf('mcp.example.com')).toBeUndefined();
  });
});
