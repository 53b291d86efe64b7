import { describe, expect, it } from '@jest/globals';
import { escapeMrkdwn, formatMrkdwn } from './format-mrkdwn.js';

const ZWSP = '\u200b';

describe('formatMrkdwn', () => {
  it("turns the agent's markdown into Slack's mrkdwn", () => {
    expect(formatMrkdwn('**bold** and _it_ and ~~gone~~')).toBe(
      `${ZWSP}*bold*${ZWSP} and ${ZWSP}_it_${ZWSP} and ${ZWSP}~gone~${ZWSP}`,
    );
    expect(formatMrkdwn('# Title\n\n- one\n- two')).toBe('*Title*\n\n•   one\n•   two');
    expect(formatMrkdwn('see [the docs](https://example.com/a?b=1)')).toBe('see <https://example.com/a?b=1|the docs>');
    expect(formatMrkdwn('```ts\nconst a = 1;\n```')).toBe('```\nconst a = 1;\n```');
  });

  it('escapes &, < and > in text, and drops links that are not URLs', () => {
    expect(formatMrkdwn('a < b & c > d')).toBe('a &lt; b &amp; c &gt; d');
    expect(formatMrkdwn('[click](javascript:alert(1))')).toBe('click');
  });

  it('never notifies a whole channel or group, whatever the reply says', () => {
    for (const broadcast of ['<!channel>', '<!here>', '<!everyone>', '<!subteam^S0123|@team>']) {
      const formatted = formatMrkdwn(`hey ${broadcast} look`);
      expect(formatted).not.toContain('<!');
      expect(formatted).toContain('&lt;!');
    }
    // A person can still be named, as the agent may answer the one who asked.
    expect(formatMrkdwn('thanks <@U0ALICE0001>')).toBe('thanks <@U0ALICE0001>');
  });
});

describe('escapeMrkdwn', () => {
  it("escapes Slack's three control characters and nothing else", () => {
    expect(escapeMrkdwn('Pay <!here> 5 € & *more*')).toBe('Pay &lt;!here&gt; 5 € &amp; *more*');
  });
});
