import { execFile } from 'node:child_process';
import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ScratchDirs } from '@agentplane/db/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AgentLoadError, resolveModuleReference } from './load-agent-module.js';

const run = promisify(execFile);

describe('resolveModuleReference', () => {
  // agents/ holds the operator's modules; outside/ and agents/node_modules/ hold code a tenant must not reach.
  const scratch = new ScratchDirs();
  let root: string;
  let agents: string;

  beforeAll(async () => {
    root = await realpath(await scratch.make('engine-modules-'));
    agents = path.join(root, 'agents');
    await mkdir(path.join(agents, 'graphs'), { recursive: true });
    await mkdir(path.join(agents, 'node_modules', 'pkg'), { recursive: true });
    await mkdir(path.join(root, 'outside'));
    await writeFile(path.join(agents, 'graphs', 'support.js'), '');
    await writeFile(path.join(agents, 'node_modules', 'pkg', 'index.js'), '');
    await writeFile(path.join(root, 'outside', 'agent.js'), '');
    await symlink(path.join(root, 'outside', 'agent.js'), path.join(agents, 'file-link.js'));
    await symlink(path.join(root, 'outside'), path.join(agents, 'dir-link'));
    await symlink(path.join(agents, 'node_modules', 'pkg'), path.join(agents, 'deps'));
    await symlink(path.join(agents, 'graphs', 'support.js'), path.join(agents, 'inner-link.js'));
  });
  afterAll(() => scratch.removeAll());

  it('resolves a relative path inside the agents directory and keeps the export name', async () => {
    await expect(resolveModuleReference('graphs/support.js:graph', agents)).resolves.toEqual({
      file: path.join(agents, 'graphs', 'support.js'),
      exportName: 'graph',
    });
  });

  it('follows a symlink that stays inside the directory', async () => {
    const { file } = await resolveModuleReference('inner-link.js:graph', agents);
    expect(file).toBe(path.join(agents, 'graphs', 'support.js'));
  });

  it.each([
    ['an absolute path', '/opt/other/agent.mjs:make', /absolute/],
    ['a path that climbs out', 'graphs/../../outside/agent.js:x', /outside the agents directory/],
    ['a symlinked file that points out', 'file-link.js:x', /outside the agents directory/],
    ['a path through a symlinked directory that points out', 'dir-link/agent.js:x', /outside the agents directory/],
    ['a path into node_modules', 'node_modules/pkg/index.js:x', /node_modules/],
    ['a symlink into node_modules', 'deps/index.js:x', /node_modules/],
  ])('refuses %s', async (_case, reference, reason) => {
    await expect(resolveModuleReference(reference, agents)).rejects.toMatchObject({
      code: 'path_escape',
      message: expect.stringMatching(reason),
    });
  });

  it('says a module that is not there is missing', async () => {
    await expect(resolveModuleReference('nowhere.js:x', agents)).rejects.toMatchObject({ code: 'missing_file' });
  });

  it('refuses a reference without an export name', async () => {
    await expect(resolveModuleReference('agent.js', agents)).rejects.toThrow(AgentLoadError);
  });
});

describe('importAgentExport under plain Node (the engine in production)', () => {
  it('imports a file fixed in place afresh for the next config version', async () => {
    // jest keeps the first text it read of a file, so this runs where the engine runs: Node itself.
    const loader = path.join(import.meta.dirname, 'load-agent-module.ts');
    const script = `
      import { registerHooks } from 'node:module';
      import { mkdtemp, rm, writeFile } from 'node:fs/promises';
      // The sources import each other as .js, as the build emits them: find the .ts beside it.
      registerHooks({
        resolve: (specifier, context, next) => {
          try {
            return next(specifier, context);
          } catch (error) {
            if (!specifier.startsWith('.') || !specifier.endsWith('.js')) throw error;
            return next(specifier.replace(/.js$/, '.ts'), context);
          }
        },
      });
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
