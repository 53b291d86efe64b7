import { describe, expect, it } from '@jest/globals';
import { formatForTeams } from './format-teams.js';
import { allowedServiceUrl, DEFAULT_SERVICE_URL_ALLOW, parseServiceUrlPattern } from './service-url-allow.js';

describe('formatForTeams', () => {
  it('keeps what Teams renders itself: bold, italics, lists, code, quotes and links', () => {
    const markdown =
      '**bold** and _it_\n\n- one\n- two\n\n```ts\nconst a = 1;\n```\n\n> quoted [link](https://example.com)';
    expect(formatForTeams(markdown)).toBe(markdown);
  });

  it('turns headings into bold lines and drops rules, which Teams text messages do not draw', () => {
    expect(formatForTeams('# Title\n\ntext\n\n---\n\n## Next\nmore')).toBe('**Title**\n\ntext\n\n**Next**\n\nmore');
  });

  it('turns a table, which Teams text messages do not render, into an aligned monospace block', () => {
    const table = '| Name | Qty |\n| --- | --- |\n| apple | 3 |\n| kiwi `x` | 12 |';
    expect(formatForTeams(`Stock:\n\n${table}\n\nDone.`)).toBe(
      ['Stock:\n\n```', 'Name     | Qty', '---------|----', 'apple    | 3', "kiwi 'x' | 12", '```\n\nDone.'].join('\n'),
    );
  });
});

describe('the connector host allowlist', () => {
  const allow = DEFAULT_SERVICE_URL_ALLOW.split(',').flatMap((item) => parseServiceUrlPattern(item) ?? []);

  it("allows Microsoft's connectors, by default the public cloud's", () => {
    for (const url of [
      'https://smba.trafficmanager.net/amer/',
      'https://smba.trafficmanager.net/teams/',
      'https://europe.webchat.botframework.com/',
    ]) {
      expect(allowedServiceUrl(url, allow)?.href).toBe(url);
    }
  });

  it('refuses other hosts, look-alikes, other schemes or ports, credentials and non-URLs', () => {
    for (const url of [
      'https://attacker.example/',
      'https://smba.trafficmanager.net.attacker.example/',
      'https://botframework.com.attacker.example/',
      'https://evilbotframework.com/',
      'http://smba.trafficmanager.net/amer/',
      'https://smba.trafficmanager.net:8443/amer/',
      'https://user:pw@smba.trafficmanager.net/amer/',
      'https://smba.trafficmanager.net/amer/?x=1',
      'not a url',
    ]) {
      expect(allowedServiceUrl(url, allow)).toBeUndefined();
    }
  });

  it('reads patterns with a port and refuses what is not an origin', () => {
    expect(parseServiceUrlPattern('http://127.0.0.1:4100')).toEqual({
      protocol: 'http:',
      host: '127.0.0.1',
      port: '4100',
      anySubdomain: false,
    });
    for (const text of ['smba.trafficmanager.net', 'https://*/', 'ftp://x.example', 'https://a.example/path']) {
      expect(parseServiceUrlPattern(text)).toBeUndefined();
    }
  });
});
