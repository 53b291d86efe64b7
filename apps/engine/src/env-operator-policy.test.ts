// The operator's policy settings of the engine: parsed once at start-up, secure by default, and a bad
// value stops the engine naming the variable.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { loadEngineEnv } from './env.js';

const FILE = { ENGINE_CONFIG_FILE: 'agent.yaml' };
const AGENT_KEY = randomBytes(32).toString('base64');

describe('operator policy settings', () => {
  it('permit no stdio command line, no cwd and no key variable by default, and read no other variable', () => {
    const env = loadEngineEnv({ ...FILE, AGENT_KEY, ANTHROPIC_KEY: 'sk-a' });
    expect(env.stdio).toEqual({ commands: [], cwdRoot: undefined });
    expect(env.models).toEqual({
      operatorApiKey: undefined,
      operatorBaseUrl: 'https://api.openai.com/v1',
      keyVariables: new Map(),
    });
  });

  it('read MCP_STDIO_COMMANDS as pinned command lines, MODEL_API_KEY_ENVS with their values, and the OpenAI settings', () => {
    const env = loadEngineEnv({
      ...FILE,
      MCP_STDIO_COMMANDS: '[{"command":"/usr/bin/node","args":["/opt/mcp/server.js"],"extraArgs":"[a-z]+"}]',
      MCP_STDIO_CWD_ROOT: '/srv/mcp',
      MODEL_API_KEY_ENVS: 'ANTHROPIC_KEY, GROQ_KEY',
      ANTHROPIC_KEY: 'sk-a',
      OPENAI_API_KEY: 'sk-operator',
      OPENAI_BASE_URL: 'http://localhost:11434/v1',
    });
    expect(env.stdio).toEqual({
      commands: [{ command: '/usr/bin/node', args: ['/opt/mcp/server.js'], extraArgs: '[a-z]+' }],
      cwdRoot: '/srv/mcp',
    });
    expect(env.models).toEqual({
      operatorApiKey: 'sk-operator',
      operatorBaseUrl: 'http://localhost:11434/v1',
      keyVariables: new Map([
        ['ANTHROPIC_KEY', 'sk-a'],
        ['GROQ_KEY', undefined],
      ]),
    });
  });

  it.each([
    ['MCP_STDIO_COMMANDS', 'node server.js'],
    ['MCP_STDIO_COMMANDS', '[{"command":"node"}]'],
    ['MCP_STDIO_COMMANDS', '[{"command":"/usr/bin/node","extraArgs":"("}]'],
    ['MCP_STDIO_CWD_ROOT', 'relative/dir'],
    ['MODEL_API_KEY_ENVS', 'SECRETS_KEY'],
    ['MODEL_API_KEY_ENVS', 'GROQ_KEY,DATABASE_URL'],
    ['MODEL_API_KEY_ENVS', 'PGPASSWORD'],
    ['MODEL_API_KEY_ENVS', 'OPENAI_API_KEY'],
    ['OPENAI_BASE_URL', 'not a url'],
  ])('stop the engine on %s=%s, naming the variable', (name, value) => {
    expect(() => loadEngineEnv({ ...FILE, [name]: value })).toThrow(new RegExp(`^  ${name}[.:]`, 'm'));
  });
});
