// People in a workspace, made through the manager's API: invited by its owner and accepted, so that the
// console is then used as that member.
import type { TRole } from '@agentplane/contracts';
import { ManagerClient } from '@agentplane/manager-client';

/** Signs `user` up and makes them a `role` of the owner's workspace, and a member of no other. */
export async function addOnlyMember(
  owner: ManagerClient,
  workspaceId: string,
  user: { email: string; password: string },
  role: Exclude<TRole, 'owner'>,
): Promise<ManagerClient> {
  const { token } = await owner.expect<{ token: string }>(201, 'POST', `/workspaces/${workspaceId}/members`, {
    email: user.email,
    role,
  });
  const member = await ManagerClient.signUp(owner.baseUrl, user);
  await member.expect(200, 'POST', `/invitations/${token}/accept`);
  // Their personal workspace goes, so the console opens on the owner's.
  await member.expect(204, 'DELETE', `/workspaces/${member.workspaceId}`);
  return member;
}
