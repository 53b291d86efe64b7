// The signed-in user's account: a password change (which ends every other session) and the open
// sessions, each of which can be ended.
import { ZPasswordChangeBody } from '@agentplane/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api, expectOk } from '../api/api-client';
import { type ApiProblem, problemOf } from '../api/api-problem';
import { useMe } from '../session/use-me';
import { errorAt, Field } from '../ui/field';
import { ProblemAlert } from '../ui/problem-alert';
import { useApiForm } from '../ui/use-api-form';

const SESSIONS_KEY = ['sessions'] as const;

export function AccountPage() {
  const { data: me } = useMe();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [problem, setProblem] = useState<ApiProblem | undefined>();
  const [changed, setChanged] = useState(false);
  const sessions = useQuery({ queryKey: SESSIONS_KEY, queryFn: () => expectOk(api.GET('/api/v1/auth/sessions/')) });
  const password = useApiForm({
    schema: ZPasswordChangeBody,
    defaultValues: { current_password: '', new_password: '' },
    submit: async (body) => {
      setChanged(false);
      await expectOk(api.POST('/api/v1/auth/password', { body }));
      password.form.reset();
      setChanged(true);
      await queryClient.invalidateQueries({ queryKey: SESSIONS_KEY });
    },
  });
  const end = async (id: string, current: boolean) => {
    setProblem(undefined);
    try {
      await expectOk(api.DELETE('/api/v1/auth/sessions/{id}', { params: { path: { id } } }));
      if (current) {
        queryClient.clear();
        await navigate('/sign-in');
        return;
      }
      await queryClient.invalidateQueries({ queryKey: SESSIONS_KEY });
    } catch (error) {
      setProblem(problemOf(error));
    }
  };
  const endAll = async () => {
    await api.POST('/api/v1/auth/logout-all');
    queryClient.clear();
    await navigate('/sign-in');
  };
  const errors = password.form.formState.errors;
  return (
    <section>
      <h1>Account</h1>
      {me && (
        <dl>
          <dt>Email</dt>
          <dd>{me.user.email}</dd>
          <dt>Name</dt>
          <dd>{me.user.name ?? '—'}</dd>
        </dl>
      )}
      <section aria-labelledby="password-heading">
        <h2 id="password-heading">Change password</h2>
        <form onSubmit={(event) => void password.onSubmit(event)} noValidate>
          <ProblemAlert problem={password.problem} />
          <Field label="Current password" error={errorAt(errors, 'current_password')}>
            <input type="password" autoComplete="current-password" {...password.form.register('current_password')} />
          </Field>
          <Field label="New password" error={errorAt(errors, 'new_password')} hint="8 to 256 characters">
            <input type="password" autoComplete="new-password" {...password.form.register('new_password')} />
          </Field>
          <button type="submit" disabled={password.form.formState.isSubmitting}>
            Change password
          </button>
          {changed && <p role="status">Password changed; your other sessions were signed out.</p>}
        </form>
      </section>
      <section aria-labelledby="sessions-heading">
        <h2 id="sessions-heading">Sessions</h2>
        <ProblemAlert problem={problem} />
        <table>
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">Last seen</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sessions.data?.map((session) => (
              <tr key={session.id}>
                <td>
                  {new Date(session.created_at).toLocaleString()}
                  {session.current && ' (this one)'}
                </td>
                <td>{new Date(session.last_seen_at).toLocaleString()}</td>
                <td>{new Date(session.expires_at).toLocaleString()}</td>
                <td>
                  <button type="button" onClick={() => void end(session.id, session.current)}>
                    {session.current ? 'End this session' : 'End session'}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <button type="button" onClick={() => void endAll()}>
          Sign out everywhere
        </button>
      </section>
    </section>
  );
}
