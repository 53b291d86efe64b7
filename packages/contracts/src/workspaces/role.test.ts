import { describe, expect, it } from '@jest/globals';
import { hasRoleAtLeast } from './role.js';

describe('hasRoleAtLeast', () => {
  it('orders owner > admin > member > viewer', () => {
    expect(hasRoleAtLeast('owner', 'admin')).toBe(true);
    expect(hasRoleAtLeast('admin', 'admin')).toBe(true);
    expect(hasRoleAtLeast('member', 'admin')).toBe(false);
    expect(hasRoleAtLeast('viewer', 'member')).toBe(false);
    expect(hasRoleAtLeast('viewer', 'viewer')).toBe(true);
  });
});
