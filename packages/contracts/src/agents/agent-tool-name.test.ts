import { describe, expect, it } from '@jest/globals';
import { AGENT_TOOL_NAME_MAX_LENGTH, agentToolName } from './agent-tool-name.js';

describe('agentToolName', () => {
  it.each([
    ['Support Bot', 'support_bot'],
    ['  Sales / EMEA  (v2) ', 'sales_emea_v2'],
    ['already_fine-name', 'already_fine-name'],
    ['Café crème', 'caf_cr_me'],
    ['--Edge__', 'edge'],
    ['a\u0000b\ud800c', 'a_b_c'],
    ['日本語', 'agent'],
    ['', 'agent'],
    ['___', 'agent'],
  ])('%j becomes %j', (name, expected) => {
    expect(agentToolName(name)).toBe(expected);
  });

  it('is at most 64 characters, without a separator left at the cut', () => {
    expect(agentToolName('x'.repeat(200))).toBe('x'.repeat(AGENT_TOOL_NAME_MAX_LENGTH));
    const cutAtSeparator = `${'y'.repeat(63)} tail`;
    expect(agentToolName(cutAtSeparator)).toBe('y'.repeat(63));
  });

  it('gives every name a stable result that is a valid tool name', () => {
    for (const name of ['Ops agent 🚀', 'ÅÄÖ', 'MiXeD-Case_99']) {
      const tool = agentToolName(name);
      expect(tool).toBe(agentToolName(name));
      expect(tool).toMatch(/^[a-z0-9][a-z0-9_-]{0,63}$/);
    }
  });
});
