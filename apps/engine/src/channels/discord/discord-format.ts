// The agent's markdown for Discord, which renders markdown itself: bold, italics, strike-through, code,
// fenced code, quotes, lists, masked links and headings of levels 1 to 3 pass through unchanged. What
// Discord would show as raw text is rewritten, outside fenced code only: deeper headings become bold
// lines, and images (which Discord does not embed from markdown) become links. Tables stay as written.
const FENCE = /^(`{3,}|~{3,})/;
const DEEP_HEADING = /^ {0,3}#{4,6}[ \t]+(.+?)[ \t#]*$/;
const IMAGE = /!\[([^\]\n]*)\]\(([^)\s]+)(?:\s+"[^"\n]*")?\)/g;

function formatLine(line: string): string {
  const heading = DEEP_HEADING.exec(line);
  const text = heading === null ? line : `**${heading[1]}**`;
  return text.replace(IMAGE, (_match, alt: string, url: string) => `[${alt === '' ? url : alt}](${url})`);
}

export function formatForDiscord(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const opener = FENCE.exec(line.trimStart())?.[1];
      if (fence === undefined && opener !== undefined) {
        fence = opener;
        return line;
      }
      if (fence !== undefined) {
        if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') fence = undefined;
        return line;
      }
      return formatLine(line);
    })
    .join('\n');
}
