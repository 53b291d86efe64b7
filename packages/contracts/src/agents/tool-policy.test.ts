import { describe, expect, it } from '@jest/globals';
import { TOOL_PATTERN_MAX_LENGTH, TOOL_PATTERNS_MAX_ITEMS } from '../common/limits.js';
import { ZCustomAgentConfig, ZLangGraphAgentConfig, ZLlmAgentConfig } from './agent-frameworks.js';
import { isToolPermitted, matchesToolPattern, needsToolApproval, ZToolPolicy } from './tool-policy.js';

const issuePaths = (input: unknown) => {
  const result = ZToolPolicy.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
};

describe('tool patterns', () => {
  it.each([
    ['github__*', 'github__create_issue', true],
    ['github__*', 'github__', true],
    ['github__*', 'gitlab__create_issue', false],
    ['*__delete_*', 'files__delete_file', true],
    ['*__delete_*', 'files__undelete_file', false],
    ['*', 'anything__at-all', true],
    ['everything__echo', 'everything__echo', true],
    ['everything__echo', 'everything__echo2', false],
    ['everything__Echo', 'everything__echo', false],
    ['*a*b', 'xaxbxb', true],
    ['*a*b', 'xaxbxa', false],
  ])('%s against %s: %s', (pattern, name, expected) => {
    expect(matchesToolPattern(pattern, name)).toBe(expected);
  });

  it('matches a pattern of many stars against a long name that misses at its end without blowing up', () => {
    const pattern = `${'*a'.repeat(31)}b`;
    const started = performance.now();
    expect(matchesToolPattern(pattern, 'a'.repeat(64))).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('refuses other characters, star-less names without __, empty, too long and too many patterns', () => {
    expect(issuePaths({ deny: ['ok__*', 'bad name'] })).toEqual(['deny.1']);
    expect(issuePaths({ allow: ['echo'] })).toEqual(['allow.0']);
    expect(issuePaths({ approval: [''] })).toEqual(['approval.0']);
    expect(issuePaths({ deny: ['a\u0000__b', 'a__\ud800'] })).toEqual(['deny.0', 'deny.1']);
    expect(issuePaths({ deny: [`a__${'b'.repeat(TOOL_PATTERN_MAX_LENGTH)}`] })).toEqual(['deny.0']);
    expect(issuePaths({ allow: Array.from({ length: TOOL_PATTERNS_MAX_ITEMS + 1 }, () => '*') })).toEqual(['allow']);
    expect(issuePaths({ deny: '*' })).toEqual(['deny']);
    expect(issuePaths({ unattended: 'ask' })).toEqual(['unattended']);
    expect(issuePaths({ unattended: 'reject', other: true })).toEqual(['']);
    expect(issuePaths({ unattended: 'allow', approval: ['*'] })).toEqual([]);
    expect(issuePaths({ allow: ['a__b'], deny: ['*__c-d_*'], approval: ['*'] })).toEqual([]);
  });
});

describe('needsToolApproval', () => {
  it('holds for the tools an approval pattern matches, and for none without one', () => {
    expect(needsToolApproval(undefined, 'a__b')).toBe(false);
    expect(needsToolApproval({ deny: ['*'] }, 'a__b')).toBe(false);
    expect(needsToolApproval({ approval: ['github__*', '*__delete_*'] }, 'github__create_issue')).toBe(true);
    expect(needsToolApproval({ approval: ['github__*', '*__delete_*'] }, 'files__delete_all')).toBe(true);
    expect(needsToolApproval({ approval: ['github__*'] }, 'files__read')).toBe(false);
  });
});

describe('isToolPermitted', () => {
  it('permits every tool without a policy or with empty lists but an empty allow list', () => {
    expect(isToolPermitted(undefined, 'a__b')).toBe(true);
    expect(isToolPermitted({ deny: [], approval: ['*'] }, 'a__b')).toBe(true);
    expect(isToolPermitted({ allow: [] }, 'a__b')).toBe(false);
  });

  it('offers only allowed tools, and deny wins over allow', () => {
    const policy = { allow: ['files__*', 'web__fetch'], deny: ['*__delete_*'] };
    expect(isToolPermitted(policy, 'files__read')).toBe(true);
    expect(isToolPermitted(policy, 'web__fetch')).toBe(true);
    expect(isToolPermitted(policy, 'web__search')).toBe(false);
    expect(isToolPermitted(policy, 'files__delete_all')).toBe(false);
  });
});

it('every framework config takes a tool policy', () => {
  const tools = { deny: ['*__delete_*'] };
  expect(ZLlmAgentConfig.parse({ model: { provider: 'mock', name: 'echo' }, tools }).tools).toEqual(tools);
  expect(ZLangGraphAgentConfig.parse({ graph: 'g.js:graph', tools }).tools).toEqual(tools);
  expect(ZCustomAgentConfig.parse({ module: 'a.js:createAgent', tools }).tools).toEqual(tools);
});
