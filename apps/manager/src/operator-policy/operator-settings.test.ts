// The manager's operator policy settings: secure by default, and a bad value stops it naming the variable.
import { describe, expect, it } from '@jest/globals';
import { loadManagerConfig } from '../config.js';

const base = { DATABASE_URL: 'postgresql://localhost/agentplane', SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') };

describe('operator policy settings', () => {
  it('permit no stdio command line, no cwd and no key variable by default', () => {
    expect(loadManagerConfig(base).operatorPolicy).toEqual({
      stdioCommands: [],
      stdioCwdRoot: undefined,
      modelApiKeyEnvs: [],
    });
  });

  it('read the permitted command lines, the cwd root and the key variables', () => {
    const config = loadManagerConfig({
      ...base,
      MCP_STDIO_COMMANDS: '[{"command":"/usr/bin/node","args":["/opt/mcp/server.js","stdio"]}]',
      MCP_STDIO_CWD_ROOT: '/srv/mcp',
      MODEL_API_KEY_ENVS: 'GROQ_API_KEY,ANTHROPIC_API_KEY',
    });
    expect(config.operatorPolicy).toEqual({
      stdioCommands: [{ command: '/usr/bin/node', args: ['/opt/mcp/server.js', 'stdio'], extraArgs: false }],
      stdioCwdRoot: '/srv/mcp',
      modelApiKeyEnvs: ['GROQ_API_KEY', 'ANTHROPIC_API_KEY'],
    });
  });

  it.each([
    ['MCP_STDIO_COMMANDS', '{"command":"/usr/bin/node"}'],
    ['MCP_STDIO_COMMANDS', '[{"command":"/usr/bin/node","shell":true}]'],
    ['MCP_STDIO_CWD_ROOT', '.'],
    ['MODEL_API_KEY_ENVS', 'SECRETS_KEY'],
    ['MODEL_API_KEY_ENVS', 'SESSION_SECRET'],
    ['MODEL_API_KEY_ENVS', 'secrets_key_previous'],
    ['MODEL_API_KEY_ENVS', 'ENGINE_DATABASE_PASSWORD'],
    ['MODEL_API_KEY_ENVS', 'NOT A NAME'],
  ])('stop the manager on %s=%s, naming the variable', (name, value) => {
    expect(() => loadManagerConfig({ ...base, [name]: value })).toThrow(new RegExp(`^  ${name}[.:]`, 'm'));
  });
});
