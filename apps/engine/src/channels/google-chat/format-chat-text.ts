// The agent's markdown in Google Chat's own text markup: *bold*, _italic_, ~strike~, `code`, ```blocks```
// and <url|label> links. The markdown is parsed by marked (its lexer only: no HTML is rendered) and the
// tokens are written out in Chat's markup; what Chat cannot show (headings, tables, rules) becomes the
// nearest plain text.
//
// The reply is the model's words, so it may carry text a prompt injection put there. Chat reads
// `<users/all>` as a mention of everyone and `<url|label>` as a link whose label hides its target: a `<`
// in the text is kept from opening either (a zero-width space after it), and only our own links keep
// Chat's link syntax.
import { lexer, type Token, type Tokens } from 'marked';

// Also a `<` that ends its token: the token after it may be text that would close the mention.
const defuse = (text: string) => text.replace(/<(?=\S|$)/g, '<\u200B');

function link(href: string, label: string): string {
  if (!/^(https?:|mailto:)/i.test(href)) return label;
  const target = href.replaceAll('|', '%7C').replaceAll('>', '%3E').replaceAll(' ', '%20');
  if (label === '' || label === href) return `<${target}>`;
  return /[|>]/.test(label) ? `${label} (${target})` : `<${target}|${label}>`;
}

function inline(tokens: Token[] | undefined): string {
  return (tokens ?? []).map(inlineToken).join('');
}

function inlineToken(token: Token): string {
  switch (token.type) {
    case 'strong':
      return `*${inline(token.tokens)}*`;
    case 'em':
      return `_${inline(token.tokens)}_`;
    case 'del':
      return `~${inline(token.tokens)}~`;
    case 'codespan':
      return `\`${token.text}\``;
    case 'br':
      return '\n';
    case 'link':
      return link(token.href, inline(token.tokens));
    case 'image':
      return link(token.href, defuse(token.text));
    case 'text':
      return token.tokens === undefined ? defuse(token.text) : inline(token.tokens);
    default:
      // escape, html and anything marked adds later: their text, as text.
      return defuse('text' in token && typeof token.text === 'string' ? token.text : token.raw);
  }
}

function listItems(list: Tokens.List, depth: number): string {
  const start = typeof list.start === 'number' ? list.start : 1;
  return list.items
    .map((item, index) => {
      const marker = list.ordered ? `${start + index}.` : '•';
      const body = blocks(item.tokens, depth + 1)
        .split('\n')
        .map((line, lineIndex) => (lineIndex === 0 ? line : `  ${line}`))
        .join('\n');
      return `${'  '.repeat(depth)}${marker} ${body.trimStart()}`;
    })
    .join('\n');
}

function table(token: Tokens.Table): string {
  const row = (cells: Tokens.TableCell[]) => cells.map((cell) => inline(cell.tokens)).join(' | ');
  return [`*${row(token.header)}*`, ...token.rows.map(row)].join('\n');
}

function block(token: Token, depth: number): string | undefined {
  switch (token.type) {
    case 'space':
    case 'hr':
      return undefined;
    case 'heading':
      return `*${inline(token.tokens)}*`;
    case 'paragraph':
      return inline(token.tokens);
    case 'code':
      return `\`\`\`\n${token.text}\n\`\`\``;
    case 'blockquote':
      return blocks(token.tokens, depth)
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n');
    case 'list':
      return listItems(token as Tokens.List, depth);
    case 'table':
      return table(token as Tokens.Table);
    default:
      return inlineToken(token);
  }
}

function blocks(tokens: Token[] | undefined, depth: number): string {
  const rendered = (tokens ?? []).map((token) => block(token, depth)).filter((text) => text !== undefined);
  // Items of a tight list hold `text` blocks that belong on one line each; other blocks are paragraphs.
  return rendered.join(depth > 0 ? '\n' : '\n\n');
}

export function formatChatText(markdown: string): string {
  return blocks(lexer(markdown), 0).trim();
}
