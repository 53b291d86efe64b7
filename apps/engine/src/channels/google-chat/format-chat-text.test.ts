import { describe, expect, it } from '@jest/globals';
import { formatChatText } from './format-chat-text.js';

describe('formatChatText', () => {
  it("writes markdown's inline styles in Chat's markup", () => {
    expect(formatChatText('**bold**, _it_, *it too*, ~~gone~~ and `x*y`')).toBe(
      '*bold*, _it_, _it too_, ~gone~ and `x*y`',
    );
  });

  it('writes links as <url|label>, and drops the link of a scheme Chat should not open', () => {
    expect(formatChatText('[docs](https://example.com/a?b=1&c=2) and https://example.com')).toBe(
      '<https://example.com/a?b=1&c=2|docs> and <https://example.com>',
    );
    expect(formatChatText('[click](javascript:alert(1))')).toBe('click');
    expect(formatChatText('[a|b](https://x.example/p>q)')).toBe('a|b (https://x.example/p%3Eq)');
  });

  it('turns headings into bold lines, keeps code blocks, lists and quotes', () => {
    const markdown = '# Title\n\nIntro\n\n- one\n- two\n  1. nested\n\n> quoted\n\n```ts\nconst a = 1 < 2;\n```';
    expect(formatChatText(markdown)).toBe(
      '*Title*\n\nIntro\n\n• one\n• two\n    1. nested\n\n> quoted\n\n```\nconst a = 1 < 2;\n```',
    );
  });

  it('writes a table as one line per row', () => {
    expect(formatChatText('| a | b |\n|---|---|\n| 1 | **2** |')).toBe('*a | b*\n1 | *2*');
  });

  it('keeps the text from mentioning people or hiding links behind labels', () => {
    const formatted = formatChatText('Hi <users/all> see <https://evil.example|your bank>');
    expect(formatted).not.toContain('<users/');
    // The URL may become a link, but shown as itself: never behind the label "your bank".
    expect(formatted).not.toMatch(/<https:\/\/evil[^>]*\|/);
    expect(formatted).not.toContain('<<');
    expect(formatted).toContain('users/all');
  });
});
