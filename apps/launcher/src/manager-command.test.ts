// `agentplane-manager`, the operators' command, as pnpm links it for the packages that depend on the
// manager. It is linked at install, before any build: a bin pointing into dist was missing then, and a
// fresh install warned once per package that it could not be created.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';

const LINKED = path.resolve(import.meta.dirname, '../node_modules/.bin/agentplane-manager');

describe('agentplane-manager', () => {
  it('is linked at install and runs the built CLI', () => {
    const document = JSON.parse(execFileSync(LINKED, ['openapi'], { encoding: 'utf8' })) as { openapi: string };
    expect(document.openapi).toMatch(/^3\.1/);
  });
});
