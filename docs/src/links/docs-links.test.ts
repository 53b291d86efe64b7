import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { brokenLinks, vitepressSlug } from './check-links.js';

const PAGES = fileURLToPath(new URL('../../pages', import.meta.url));

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.')) return []; // .vitepress: the site's config and cache
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? markdownFiles(full) : entry.name.endsWith('.md') ? [full] : [];
  });
}

describe('the docs pages', () => {
  // The build (a dependency of this test task) already failed on a missing page; this adds anchors.
  it('link only to pages, files and headings that exist', () => {
    const files = markdownFiles(PAGES);
    expect(files.length).toBeGreaterThan(15);
    const problems = files.flatMap((file) =>
      brokenLinks(file, { slug: vitepressSlug, siteRoot: PAGES, pagesWithoutExtension: true }).map(
        (problem) => `${path.relative(PAGES, file)}: ${problem}`,
      ),
    );
    expect(problems).toEqual([]);
  });
});
