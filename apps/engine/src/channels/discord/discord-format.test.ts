import { describe, expect, it } from '@jest/globals';
import { formatForDiscord } from './discord-format.js';

describe('formatForDiscord', () => {
  it('passes the markdown Discord renders through unchanged', () => {
    const markdown = '# Title\n\n**bold** *it* ~~gone~~ `code`\n> quote\n- item\n[docs](https://example.com)';
    expect(formatForDiscord(markdown)).toBe(markdown);
  });

  it('turns deeper headings into bold lines and images into links', () => {
    expect(formatForDiscord('#### Details ##\n![chart](https://x.test/c.png "Chart")')).toBe(
      '**Details**\n[chart](https://x.test/c.png)',
    );
    expect(formatForDiscord('![](https://x.test/a.png)')).toBe('[https://x.test/a.png](https://x.test/a.png)');
  });

  it('leaves fenced code as written', () => {
    const code = '```md\n#### not a heading\n![not](an image)\n```\n#### after';
    expect(formatForDiscord(code)).toBe('```md\n#### not a heading\n![not](an image)\n```\n**after**');
  });
});
