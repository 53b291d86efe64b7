import { describe, expect, it } from '@jest/globals';
import { markdownToTelegramHtml } from './telegram-html.js';

describe('markdownToTelegramHtml', () => {
  it.each([
    [
      'inline styles',
      'Some **bold**, _it_, ~~gone~~ and `a<b>&c`.',
      'Some <b>bold</b>, <i>it</i>, <s>gone</s> and <code>a&lt;b&gt;&amp;c</code>.',
    ],
    ['a heading as a bold line', '# Title\n\ntext', '<b>Title</b>\n\ntext'],
    ['nested lists and task items', '- one\n  - two\n- [x] done\n- [ ] open', '• one\n   • two\n• ☑ done\n• ☐ open'],
    ['an ordered list from its start', '3. c\n4. d', '3. c\n4. d'],
    [
      'a fenced block with its language',
      '```ts\nif (a < b && c) {}\n```',
      '<pre><code class="language-ts">if (a &lt; b &amp;&amp; c) {}</code></pre>',
    ],
    ['a fence whose language is not a word', '```"><b\nx\n```', '<pre><code>x</code></pre>'],
    ['a nested quote joined to the outer one', '> a\n> > b', '<blockquote>a\n\nb</blockquote>'],
    ['a table as lines', '| a | b |\n|---|---|\n| 1 | **2** |', '<b>a | b</b>\n1 | <b>2</b>'],
    ['line breaks', 'one  \ntwo\\\nthree', 'one\ntwo\nthree'],
    ['an unclosed emphasis as written (a streamed reply cut short)', '**unfinished', '**unfinished'],
  ])('renders %s', (_what, markdown, html) => {
    expect(markdownToTelegramHtml(markdown)).toBe(html);
  });

  it('shows raw HTML and entities as written, never as markup Telegram would refuse', () => {
    expect(markdownToTelegramHtml('<script>x</script> <b>raw</b> &nbsp; &amp;')).toBe(
      '&lt;script&gt;x&lt;/script&gt; &lt;b&gt;raw&lt;/b&gt; &amp;nbsp; &amp;amp;',
    );
  });

  it('links only to web, mail and tg: targets, with the href escaped', () => {
    expect(
      markdownToTelegramHtml('[a](https://x.test/?q=1&r="2") [b](javascript:alert(1)) ![pic](https://x.test/p.png)'),
    ).toBe('<a href="https://x.test/?q=1&amp;r=&quot;2&quot;">a</a> b <a href="https://x.test/p.png">pic</a>');
  });
});
