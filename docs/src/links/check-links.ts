// Relative links in Markdown files: each must name a file that exists and, with an anchor, a heading of
// that file. VitePress's own dead-link check fails the build on a missing page but not on a missing
// anchor, and knows nothing of the README, which GitHub renders; this checks both.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** How a renderer turns a heading into its anchor. */
export type Slugger = (heading: string) => string;

/** GitHub's anchors: lower case, punctuation dropped, spaces to hyphens. */
export const githubSlug: Slugger = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** VitePress's anchors (@mdit-vue/shared's slugify): runs of punctuation and spaces to one hyphen. */
export const vitepressSlug: Slugger = (heading) =>
  heading
    .normalize('NFKD')
    .replace(/[\u0300-\u036F]/g, '')
    .replace(/[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .replace(/^(\d)/, '_$1')
    .toLowerCase();

/** Markdown without its fenced blocks and code spans, where brackets are not links. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`+[^`\n]*`+/g, '');
}

export function markdownLinks(markdown: string): string[] {
  return [...withoutCode(markdown).matchAll(/!?\[[^\]\n]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map(
    (match) => match[1] as string,
  );
}

export function headingAnchors(markdown: string, slug: Slugger): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, text] of withoutCode(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = slug((text as string).replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

export type LinkCheckOptions = {
  slug: Slugger;
  /** Where a link starting with / resolves (a site's source root); without it such links are broken. */
  siteRoot?: string;
  /** Site links name pages without their .md (VitePress); files then resolve with it added. */
  pagesWithoutExtension?: boolean;
};

function resolveFile(target: string, from: string, options: LinkCheckOptions): string | undefined {
  const base = target.startsWith('/') ? options.siteRoot : path.dirname(from);
  if (base === undefined) return undefined;
  const file = path.join(base, decodeURI(target));
  const candidates = options.pagesWithoutExtension
    ? [file, `${file}.md`, path.join(file, 'index.md')]
    : [file, path.join(file, 'README.md')];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/** Every broken relative link of one Markdown file, as "link: why". */
export function brokenLinks(file: string, options: LinkCheckOptions): string[] {
  const markdown = readFileSync(file, 'utf8');
  const problems: string[] = [];
  for (const link of markdownLinks(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:: not ours to check
    const [target = '', anchor] = link.split('#', 2);
    const resolved = target === '' ? file : resolveFile(target, file, options);
    if (resolved === undefined) {
      problems.push(`${link}: no such file`);
      continue;
    }
    if (anchor === undefined || anchor === '' || !resolved.endsWith('.md')) continue;
    if (!headingAnchors(readFileSync(resolved, 'utf8'), options.slug).has(anchor)) {
      problems.push(`${link}: no heading with that anchor in ${path.basename(resolved)}`);
    }
  }
  return problems;
}
