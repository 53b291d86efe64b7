import { z } from 'zod';

/** Highest first. A viewer reads; member and up write resources; admin and up manage members. */
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type TRole = (typeof ROLES)[number];

export const ZRole = z.enum(ROLES).meta({ id: 'Role' });

const RANK: Record<TRole, number> = { owner: 4, admin: 3, member: 2, viewer: 1 };

export function hasRoleAtLeast(role: TRole, minimum: TRole): boolean {
  return RANK[role] >= RANK[minimum];
}
