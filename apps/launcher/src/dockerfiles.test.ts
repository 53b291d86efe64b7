// The images' build stage installs from the workspace manifests alone, before the sources are copied,
// so its dependency layer is cached: a workspace package whose manifest a Dockerfile does not copy is
// built without its dependencies, and the image build fails (as it did when packages/agent-client came).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** The manifests of the packages pnpm-workspace.yaml lists ("apps/*" and the like, or a folder). */
function workspaceManifests(): string[] {
  const { packages } = parse(readFileSync(path.join(ROOT, 'pnpm-workspace.yaml'), 'utf8')) as { packages: string[] };
  const folders = packages.flatMap((entry) =>
    entry.endsWith('/*')
      ? readdirSync(path.join(ROOT, entry.slice(0, -2))).map((name) => `${entry.slice(0, -2)}/${name}`)
      : [entry],
  );
  return folders
    .filter((folder) => existsSync(path.join(ROOT, folder, 'package.json')))
    .map((folder) => `${folder}/package.json`)
    .sort();
}

describe('docker/smoke-test.sh', () => {
  it('makes .tools/ before its run directory in it, so it runs outside .ci/run too', () => {
    const lines = readFileSync(path.join(ROOT, 'docker/smoke-test.sh'), 'utf8').split('\n');
    const made = lines.findIndex((line) => line.trim() === 'mkdir -p "$PWD/.tools"');
    const used = lines.findIndex((line) => line.includes('mktemp -d "$PWD/.tools/'));
    expect(used).toBeGreaterThan(-1);
    expect(made).toBeGreaterThan(-1);
    expect(made).toBeLessThan(used);
  });
});

describe.each(['manager', 'engine'])('docker/%s.Dockerfile', (service) => {
  it('copies every workspace manifest before installing', () => {
    const dockerfile = readFileSync(path.join(ROOT, `docker/${service}.Dockerfile`), 'utf8');
    const copied = [...dockerfile.matchAll(/^COPY (\S+\/package\.json) /gm)].map((match) => match[1]).sort();
    expect(copied).toEqual(workspaceManifests());
  });
});
