import type { TRole } from '@agentplane/contracts';
import { useQuery } from '@tanstack/react-query';
import { api, expectOk } from '../api/api-client';
import { ApiProblem } from '../api/api-problem';
import { activeWorkspaceId, chooseWorkspace } from './active-workspace';

export const ME_KEY = ['me'] as const;

/** The signed-in user, or null when there is no session (a 401). */
export function useMe() {
  return useQuery({
    queryKey: ME_KEY,
    queryFn: async () => {
      try {
        const me = await expectOk(api.GET('/api/v1/auth/me'));
        chooseWorkspace(me, activeWorkspaceId() ?? undefined);
        return me;
      } catch (error) {
        if (error instanceof ApiProblem && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: 30_000,
  });
}

const RANK: Record<TRole, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

/** The caller's role in the active workspace, and what it lets the pages offer (the API decides anyway). */
export function useRole() {
  const { data: me } = useMe();
  const role = me?.workspaces.find((workspace) => workspace.id === activeWorkspaceId())?.role ?? 'viewer';
  return {
    role,
    canWrite: RANK[role] >= RANK.member,
    canAdmin: RANK[role] >= RANK.admin,
    isOwner: role === 'owner',
  };
}
