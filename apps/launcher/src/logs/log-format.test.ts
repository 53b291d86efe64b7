import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '@agentplane/server-kit';
import { describe, expect, it } from '@jest/globals';
import { LAUNCHER_ENV, readLauncherEnv } from '../launcher-env.js';
import { chooseLogFormat } from './log-format.js';

describe('chooseLogFormat', () => {
  it('prints readable lines on a terminal and JSON when piped, unless LOG_FORMAT says', () => {
    expect(chooseLogFormat(undefined, true)).toBe('pretty');
    expect(chooseLogFormat(undefined, false)).toBe('json');
    expect(chooseLogFormat('json', true)).toBe('json');
    expect(chooseLogFormat('pretty', false)).toBe('pretty');
  });
});

describe('LOG_FORMAT', () => {
  it('is read as pretty, json, or unset when empty', () => {
    expect(readLauncherEnv({ LOG_FORMAT: 'json' }).LOG_FORMAT).toBe('json');
    expect(readLauncherEnv({ LOG_FORMAT: 'pretty' }).LOG_FORMAT).toBe('pretty');
    expect(readLauncherEnv({ LOG_FORMAT: '' }).LOG_FORMAT).toBeUndefined();
    expect(readLauncherEnv({}).LOG_FORMAT).toBeUndefined();
    expect(() => readLauncherEnv({ LOG_FORMAT: 'yaml' })).toThrow(ConfigError);
  });

  it('is documented beside the launcher env schema, for the configuration reference', () => {
    expect(Object.keys(LAUNCHER_ENV.docs)).toEqual(Object.keys(LAUNCHER_ENV.schema.shape));
    expect(LAUNCHER_ENV.docs.LOG_FORMAT?.default).toContain('`json` otherwise');
  });

  it('stops `pnpm start` with its name when it is neither, before anything starts', () => {
    const main = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
    const result = spawnSync(process.execPath, [main], {
      env: { ...process.env, LOG_FORMAT: 'yaml' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('LOG_FORMAT: must be "pretty" or "json"');
    expect(result.stdout).not.toContain('postgres');
  });
});
