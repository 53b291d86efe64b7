// The agent's markdown as Telegram's HTML parse mode. Telegram accepts only a few tags (b, i, s, u,
// code, pre, a, blockquote, span.tg-spoiler) and four named entities, and refuses a whole message over
// one stray `<` or an unknown tag, so every piece of text is escaped here, raw HTML in the markdown
// included (it is shown as written, never passed through), and the block structure Telegram lacks
// (headings, lists, tables, rules) becomes bold lines, bullets and plain text. `marked` parses.
import { Marked, type Tokens } from 'marked';

/** Telegram's HTML escaping: &, < and > in text, and " too inside an attribute. */
export function escapeTelegramHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

// Telegram opens these in a client; anything else (javascript:, data:, relative paths) stays text.
const LINKABLE = /^(https?:|tg:|mailto:)/i;
// A fence's language becomes a class name Telegram reads for highlighting: a plain word only.
const LANGUAGE = /^[\w#+.-]{1,32}$/;

const telegram = new Marked({
  gfm: true,
  renderer: {
    space: () => '',
    def: () => '',
    html: ({ text }) => escapeTelegramHtml(text),
    text(token) {
      return 'tokens' in token && token.tokens !== undefined
        ? this.parser.parseInline(token.tokens)
        : escapeTelegramHtml(token.text);
    },
    paragraph({ tokens }) {
      return `${this.parser.parseInline(tokens)}\n\n`;
    },
    heading({ tokens }) {
      return `<b>${this.parser.parseInline(tokens)}</b>\n\n`;
    },
    hr: () => '———\n\n',
    code({ text, lang }) {
      const language = lang?.trim().split(/\s+/)[0] ?? '';
      const open = LANGUAGE.test(language) ? `<code class="language-${language}">` : '<code>';
      return `<pre>${open}${escapeTelegramHtml(text)}</code></pre>\n\n`;
    },
    blockquote({ tokens }) {
      // Telegram refuses a blockquote inside another: a nested quote joins the outer one.
      const inner = this.parser.parse(tokens).trim().replaceAll('<blockquote>', '').replaceAll('</blockquote>', '');
      return `<blockquote>${inner}</blockquote>\n\n`;
    },
    list(list: Tokens.List) {
      const first = typeof list.start === 'number' ? list.start : 1;
      const lines = list.items.map((item, index) => {
        const bullet = list.ordered ? `${first + index}.` : '•';
        const box = item.task ? (item.checked === true ? '☑ ' : '☐ ') : '';
        // Continuation lines (a nested list, a second paragraph) are indented under the bullet.
        const blocks = item.tokens.map((token) => this.parser.parse([token]).trim()).filter((block) => block !== '');
        const body = blocks.join('\n').replaceAll(/\n+/g, '\n   ');
        return `${bullet} ${box}${body}`;
      });
      return `${lines.join('\n')}\n\n`;
    },
    // A task item's box is drawn by list(); the parser's own checkbox token adds nothing.
    checkbox: () => '',
    table(table: Tokens.Table) {
      const row = (cells: Tokens.TableCell[]) => cells.map((cell) => this.parser.parseInline(cell.tokens)).join(' | ');
      const header = `<b>${row(table.header)}</b>`;
      return `${[header, ...table.rows.map(row)].join('\n')}\n\n`;
    },
    strong({ tokens }) {
      return `<b>${this.parser.parseInline(tokens)}</b>`;
    },
    em({ tokens }) {
      return `<i>${this.parser.parseInline(tokens)}</i>`;
    },
    del({ tokens }) {
      return `<s>${this.parser.parseInline(tokens)}</s>`;
    },
    codespan: ({ text }) => `<code>${escapeTelegramHtml(text)}</code>`,
    br: () => '\n',
    link({ href, tokens }) {
      const label = this.parser.parseInline(tokens);
      return LINKABLE.test(href) ? `<a href="${escapeTelegramHtml(href)}">${label}</a>` : label;
    },
    // Telegram shows no inline images: the picture becomes a link named by its alt text.
    image({ href, text }) {
      const label = escapeTelegramHtml(text === '' ? href : text);
      return LINKABLE.test(href) ? `<a href="${escapeTelegramHtml(href)}">${label}</a>` : label;
    },
  },
});

/** The agent's markdown as the text of a message sent with parse_mode HTML. */
export function markdownToTelegramHtml(markdown: string): string {
  const html = telegram.parse(markdown, { async: false });
  return html.replaceAll(/\n{3,}/g, '\n\n').trim();
}
