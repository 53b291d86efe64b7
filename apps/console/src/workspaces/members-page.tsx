// The active workspace's members and open invitations. Admins and owners change roles, remove members
// and invite; everyone else reads. The API enforces the finer rules (only owners touch owners).
import { ROLES, type TRole, ZMemberAddBody } from '@agentplane/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, expectOk, type Schemas } from '../api/api-client';
import { type ApiProblem, problemOf } from '../api/api-problem';
import { activeWorkspaceId } from '../session/active-workspace';
import { ME_KEY, useMe, useRole } from '../session/use-me';
import { EmptyState } from '../ui/empty-state';
import { errorAt, Field } from '../ui/field';
import { ProblemAlert } from '../ui/problem-alert';
import { useApiForm } from '../ui/use-api-form';

const MEMBERS_KEY = 'members';

export function MembersPage() {
  const workspaceId = activeWorkspaceId() ?? '';
  const { canAdmin } = useRole();
  const { data: me } = useMe();
  const queryClient = useQueryClient();
  const [problem, setProblem] = useState<ApiProblem | undefined>();
  const path = { path: { id: workspaceId } };
  const members = useQuery({
    queryKey: [MEMBERS_KEY, workspaceId],
    queryFn: () => expectOk(api.GET('/api/v1/workspaces/{id}/members/', { params: path })),
  });
  const invitations = useQuery({
    queryKey: [MEMBERS_KEY, workspaceId, 'invitations'],
    queryFn: () => expectOk(api.GET('/api/v1/workspaces/{id}/invitations/', { params: path })),
    enabled: canAdmin,
  });
  const act = async (call: () => Promise<unknown>) => {
    setProblem(undefined);
    try {
      await call();
    } catch (error) {
      setProblem(problemOf(error));
    }
    await queryClient.invalidateQueries({ queryKey: [MEMBERS_KEY] });
    await queryClient.invalidateQueries({ queryKey: ME_KEY });
  };
  const setRole = (member: Schemas['Member'], role: TRole) =>
    act(() =>
      expectOk(
        api.PATCH('/api/v1/workspaces/{id}/members/{user_id}', {
          params: { path: { id: workspaceId, user_id: member.user_id } },
          body: { role },
        }),
      ),
    );
  const remove = (member: Schemas['Member']) =>
    act(() =>
      expectOk(
        api.DELETE('/api/v1/workspaces/{id}/members/{user_id}', {
          params: { path: { id: workspaceId, user_id: member.user_id } },
        }),
      ),
    );
  const revoke = (invitationId: string) =>
    act(() =>
      expectOk(
        api.DELETE('/api/v1/workspaces/{id}/invitations/{invitation_id}', {
          params: { path: { id: workspaceId, invitation_id: invitationId } },
        }),
      ),
    );
  return (
    <section>
      <h1>Members</h1>
      <ProblemAlert problem={problem ?? (members.error ? problemOf(members.error) : undefined)} />
      <table>
        <caption className="visually-hidden">Members</caption>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {members.data?.map((member) => (
            <tr key={member.user_id}>
              <td>{member.email}</td>
              <td>{member.name ?? ''}</td>
              <td>
                <select
                  aria-label={`Role of ${member.email}`}
                  value={member.role}
                  disabled={!canAdmin}
                  onChange={(event) => void setRole(member, event.target.value as TRole)}
                >
                  {ROLES.map((role) => (
                    <option key={role}>{role}</option>
                  ))}
                </select>
              </td>
              <td>
                <button
                  type="button"
                  disabled={!canAdmin && member.user_id !== me?.user.id}
                  onClick={() => void remove(member)}
                >
                  {member.user_id === me?.user.id ? 'Leave workspace' : `Remove ${member.email}`}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {canAdmin && <InviteForm workspaceId={workspaceId} onInvited={() => void act(async () => {})} />}
      {canAdmin && invitations.data && (
        <section aria-labelledby="invitations-heading">
          <h2 id="invitations-heading">Open invitations</h2>
          {invitations.data.length === 0 ? (
            <EmptyState title="No open invitations">
              <p>Invite someone with the form above: they join when they open the link it gives you.</p>
            </EmptyState>
          ) : (
            <ul>
              {invitations.data.map((invitation) => (
                <li key={invitation.id}>
                  {invitation.email} as {invitation.role}, until {new Date(invitation.expires_at).toLocaleString()}{' '}
                  <button type="button" onClick={() => void revoke(invitation.id)}>
                    Revoke invitation for {invitation.email}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </section>
  );
}

function InviteForm({ workspaceId, onInvited }: { workspaceId: string; onInvited: () => void }) {
  const [link, setLink] = useState<string | undefined>();
  const { form, problem, onSubmit } = useApiForm({
    schema: ZMemberAddBody,
    defaultValues: { email: '', role: 'member' },
    submit: async (body) => {
      const created = await expectOk(
        api.POST('/api/v1/workspaces/{id}/members/', { params: { path: { id: workspaceId } }, body }),
      );
      // The platform sends no email: the token is shown once, to pass on.
      setLink(`${window.location.origin}/invitations/${created.token}`);
      form.reset({ email: '', role: body.role });
      onInvited();
    },
  });
  return (
    <section aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite a member</h2>
      <form onSubmit={(event) => void onSubmit(event)} noValidate>
        <ProblemAlert problem={problem} />
        <Field label="Email" error={errorAt(form.formState.errors, 'email')}>
          <input type="email" {...form.register('email')} />
        </Field>
        <Field label="Role" error={errorAt(form.formState.errors, 'role')}>
          <select {...form.register('role')}>
            {ROLES.map((role) => (
              <option key={role}>{role}</option>
            ))}
          </select>
        </Field>
        <button type="submit" disabled={form.formState.isSubmitting}>
          Invite member
        </button>
      </form>
      {link && (
        <p role="status">
          Invitation link (shown once; send it to the invitee): <code>{link}</code>
        </p>
      )}
    </section>
  );
}
