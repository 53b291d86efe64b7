import { describe, expect, it } from '@jest/globals';
import { isStdioCommandAllowed, STDIO_EXTRA_ARGS_MAX, ZStdioCommandsSetting } from './stdio-commands.js';

const rules = ZStdioCommandsSetting.parse(
  JSON.stringify([
    { command: '/usr/bin/node', args: ['/opt/mcp/server.js', 'stdio'] },
    { command: '/usr/bin/python3', args: ['-m', 'mcp_files'], extraArgs: '/srv/data/[a-z]+' },
    { command: '/usr/local/bin/mcp-time' },
  ]),
);
const allowed = (command: string, ...args: string[]) => isStdioCommandAllowed({ command, args }, rules);

describe('MCP_STDIO_COMMANDS', () => {
  it('parses entries with no extra arguments by default', () => {
    expect(rules[0]).toEqual({ command: '/usr/bin/node', args: ['/opt/mcp/server.js', 'stdio'], extraArgs: false });
    expect(ZStdioCommandsSetting.parse('[]')).toEqual([]);
  });

  it.each([
    ['text that is not JSON', 'node server.js', /JSON array/],
    ['an object', '{"command":"/usr/bin/node"}', /array/],
    ['a relative command', '[{"command":"node"}]', /absolute path/],
    ['a bad pattern', '[{"command":"/usr/bin/node","extraArgs":"("}]', /regular expression/],
    ['extraArgs true', '[{"command":"/usr/bin/node","extraArgs":true}]', /./],
    ['an unknown field', '[{"command":"/usr/bin/node","shell":true}]', /shell/],
  ])('refuses %s', (_case, text, message) => {
    const result = ZStdioCommandsSetting.safeParse(text);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('\n')).toMatch(message);
  });

  it('allows exactly the pinned command line', () => {
    expect(allowed('/usr/bin/node', '/opt/mcp/server.js', 'stdio')).toBe(true);
    expect(allowed('/usr/local/bin/mcp-time')).toBe(true);
  });

  it.each([
    ['the interpreter with code of its own', ['/usr/bin/node', '-e', 'process.exit()']],
    ['the interpreter alone', ['/usr/bin/node']],
    ['a prefix of the pinned arguments', ['/usr/bin/node', '/opt/mcp/server.js']],
    ['an option before the script', ['/usr/bin/node', '--require=/tmp/x.js', '/opt/mcp/server.js', 'stdio']],
    ['an argument after an entry that allows none', ['/usr/bin/node', '/opt/mcp/server.js', 'stdio', '--inspect']],
    ['the command by another path', ['/usr/bin/../bin/node', '/opt/mcp/server.js', 'stdio']],
    ['the command found on PATH', ['node', '/opt/mcp/server.js', 'stdio']],
    ['an extra argument the pattern matches only in part', ['/usr/bin/python3', '-m', 'mcp_files', '/srv/data/a;id']],
    ['an extra argument before the pattern', ['/usr/bin/python3', '-m', 'mcp_files', 'x/srv/data/a']],
  ])('refuses %s', (_case, [command = '', ...args]) => {
    expect(allowed(command, ...args)).toBe(false);
  });

  it('allows extra arguments that each match the pattern as a whole, up to the limit', () => {
    expect(allowed('/usr/bin/python3', '-m', 'mcp_files', '/srv/data/reports', '/srv/data/logs')).toBe(true);
    expect(allowed('/usr/bin/python3', '-m', 'mcp_files')).toBe(true);
    const many = Array.from({ length: STDIO_EXTRA_ARGS_MAX + 1 }, () => '/srv/data/a');
    expect(allowed('/usr/bin/python3', '-m', 'mcp_files', ...many)).toBe(false);
  });
});
