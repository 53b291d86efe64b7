// The agent's markdown as Teams shows it. Teams renders markdown in text messages (textFormat
// markdown) but not all of it: headings show as "### Title" and tables as rows of pipes. marked reads
// the markdown; headings become bold lines and tables monospace blocks, everything else passes as
// written (bold, italics, lists, code, quotes and links Teams renders itself).
import { Lexer, type Token, type Tokens } from 'marked';

function tableAsCode(table: Tokens.Table): string {
  const rows = [table.header, ...table.rows].map((row) => row.map((cell) => cell.text.replaceAll('`', "'")));
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  const line = (row: string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join(' | ')
      .trimEnd();
  const [header = [], ...body] = rows;
  const rule = widths.map((width) => '-'.repeat(width)).join('-|-');
  return ['```', line(header), rule, ...body.map(line), '```'].join('\n');
}

// One block as Teams should get it; undefined for what it would not draw (a rule, the blank lines).
function rewrite(token: Token): string | undefined {
  if (token.type === 'space' || token.type === 'hr') return undefined;
  if (token.type === 'heading') return `**${(token as Tokens.Heading).text}**`;
  if (token.type === 'table') return tableAsCode(token as Tokens.Table);
  return token.raw.replace(/\n+$/, '');
}

export function formatForTeams(markdown: string): string {
  const blocks = new Lexer({ gfm: true }).lex(markdown).flatMap((token) => rewrite(token) ?? []);
  return blocks.join('\n\n').trim();
}
