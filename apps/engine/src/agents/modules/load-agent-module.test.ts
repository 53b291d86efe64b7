import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { AgentLoadError, resolveModuleReference } from './load-agent-module.js';

const run = promisify(execFile);

describe('resolveModuleReference', () => {
  it('resolves a relative path against the agents directory and keeps the export name', () => {
    expect(resolveModuleReference('graphs/support.js:graph', '/srv/agents')).toEqual({
      file: '/srv/agents/graphs/support.js',
      exportName: 'graph',
    });
  });

  it('allows an absolute path anywhere', () => {
    expect(resolveModuleReference('/opt/other/agent.mjs:make', '/srv/agents').file).toBe('/opt/other/agent.mjs');
  });

  it('allows .. that stays inside the directory', () => {
    expect(resolveModuleReference('a/../b.js:x', '/srv/agents').file).toBe('/srv/agents/b.js');
  });

  it.each(['../secrets.js:x', 'a/../../etc/x.js:y', '..:x'])('refuses %s, which climbs out', (reference) => {
    expect(() => resolveModuleReference(reference, '/srv/agents')).toThrow(
      expect.objectContaining({ code: 'path_escape' }) as unknown as Error,
    );
  });

  it('refuses a reference without an export name', () => {
    expect(() => resolveModuleReference('agent.js', '/srv/agents')).toThrow(AgentLoadError);
  });
});

describe('importAgentExport under plain Node (the engine in production)', () => {
  it('imports a file fixed in place afresh for the next config version', async () => {
    // jest keeps the first text it read of a file, so this runs where the engine runs: Node itself.
    const loader = path.join(import.meta.dirname, 'load-agent-module.ts');
    const script = `
      import { mkdtemp, rm, writeFile } from 'node:fs/promises';
      import { tmpdir } from 'node:os';
      import path from 'node:path';
      const { importAgentExport } = await import(${JSON.stringify(loader)});
      const dir = await mkdtemp(path.join(tmpdir(), 'engine-reload-'));
      await writeFile(path.join(dir, 'agent.js'), 'export const value = "broken";');
      const first = await importAgentExport('agent.js:value', dir, 1);
      await writeFile(path.join(dir, 'agent.js'), 'export const value = "fixed";');
      const again = await importAgentExport('agent.js:value', dir, 1);
      const next = await importAgentExport('agent.js:value', dir, 2);
      await rm(dir, { recursive: true });
      console.log(JSON.stringify([first, again, next]));
    `;
    const { stdout } = await run(
      process.execPath,
      ['--experimental-transform-types', '--no-warnings', '--input-type=module', '-e', script],
      { timeout: 20_000 },
    );
    // The same version is the cached module; the next version reads the file again.
    expect(JSON.parse(stdout)).toEqual(['broken', 'broken', 'fixed']);
  });
});
