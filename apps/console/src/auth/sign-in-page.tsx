import { ZLoginBody } from '@agentplane/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, expectOk } from '../api/api-client';
import { chooseWorkspace } from '../session/active-workspace';
import { ME_KEY } from '../session/use-me';
import { errorAt, Field } from '../ui/field';
import { ProblemAlert } from '../ui/problem-alert';
import { useApiForm } from '../ui/use-api-form';

/** Where to go after signing in: a path of this console only, never another site. */
export function nextPath(params: URLSearchParams): string {
  const next = params.get('next') ?? '';
  return next.startsWith('/') && !next.startsWith('//') ? next : '/agents';
}

export function SignInPage() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const { form, problem, onSubmit } = useApiForm({
    schema: ZLoginBody,
    submit: async (body) => {
      const me = await expectOk(api.POST('/api/v1/auth/login', { body }));
      // Before any page asks: the workspace kept from an earlier session may not be this user's.
      chooseWorkspace(me);
      queryClient.setQueryData(ME_KEY, me);
      await navigate(nextPath(params));
    },
  });
  const { errors, isSubmitting } = form.formState;
  return (
    <main className="auth">
      <h1>Sign in</h1>
      <form onSubmit={(event) => void onSubmit(event)} noValidate>
        <ProblemAlert problem={problem} />
        <Field label="Email" error={errorAt(errors, 'email')}>
          <input type="email" autoComplete="username" {...form.register('email')} />
        </Field>
        <Field label="Password" error={errorAt(errors, 'password')}>
          <input type="password" autoComplete="current-password" {...form.register('password')} />
        </Field>
        <button type="submit" disabled={isSubmitting}>
          Sign in
        </button>
      </form>
      <p>
        No account? <Link to="/sign-up">Sign up</Link>
      </p>
    </main>
  );
}
