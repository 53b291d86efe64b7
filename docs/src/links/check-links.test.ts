import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { brokenLinks, githubSlug, headingAnchors, vitepressSlug } from './check-links.js';

const dir = mkdtempSync(path.join(tmpdir(), 'docs-links-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(file: string, text: string): string {
  const full = path.join(dir, file);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, text);
  return full;
}

describe('brokenLinks', () => {
  write('guide/b.md', '# Page B\n\n## Pools and dedicated engines\n\n## Setup\n\n## Setup\n');
  write('img.png', 'not really a picture');

  it('names a link to a missing file and an anchor no heading has, and passes the rest', () => {
    const file = write(
      'a.md',
      [
        '# A',
        '[ok](guide/b.md) [ok anchor](guide/b.md#pools-and-dedicated-engines) [second setup](guide/b.md#setup-1)',
        '![picture](img.png) [here](#a) [web](https://example.com/missing.md)',
        '[gone](guide/missing.md) [bad anchor](guide/b.md#no-such-heading) [bad here](#nowhere)',
        '`[in code](nowhere.md)`',
        '```',
        '[in a fence](nowhere.md)',
        '```',
      ].join('\n'),
    );
    expect(brokenLinks(file, { slug: githubSlug })).toEqual([
      'guide/missing.md: no such file',
      'guide/b.md#no-such-heading: no heading with that anchor in b.md',
      '#nowhere: no heading with that anchor in a.md',
    ]);
  });

  it('resolves site links without their extension from the site root, as VitePress does', () => {
    const file = write('guide/c.md', '[b](/guide/b#setup) [rel](./b) [gone](/guide/nothing) [root](/)\n');
    write('index.md', '# Home\n');
    expect(brokenLinks(file, { slug: vitepressSlug, siteRoot: dir, pagesWithoutExtension: true })).toEqual([
      '/guide/nothing: no such file',
    ]);
  });
});

describe('the sluggers', () => {
  it("make GitHub's and VitePress's anchors", () => {
    expect(githubSlug('Web console: browser tests')).toBe('web-console-browser-tests');
    expect(vitepressSlug('Web console: browser tests')).toBe('web-console-browser-tests');
    expect(vitepressSlug('4. `/agent/run`, traced')).toBe('_4-agent-run-traced');
    expect([...headingAnchors('# A\n## A\n', githubSlug)]).toEqual(['a', 'a-1']);
  });
});
