import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { brokenLinks, githubSlug, markdownLinks } from '../links/check-links.js';

const README = fileURLToPath(new URL('../../../README.md', import.meta.url));
const text = readFileSync(README, 'utf8');

describe('README.md', () => {
  it('reads in five minutes: at most 300 lines', () => {
    expect(text.split('\n').length - (text.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(300);
  });

  it('links only to files and headings that exist', () => {
    expect(markdownLinks(text).length).toBeGreaterThan(20);
    expect(brokenLinks(README, { slug: githubSlug })).toEqual([]);
  });

  it('keeps the two quick-start commands', () => {
    expect(text).toContain('npm install -g pnpm@10.34.9 && pnpm install && pnpm start\n');
    expect(text).toMatch(/^pnpm test$/m);
  });
});
