import { ZSignupBody } from '@agentplane/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { api, expectOk } from '../api/api-client';
import { chooseWorkspace } from '../session/active-workspace';
import { ME_KEY } from '../session/use-me';
import { errorAt, Field, optionalText } from '../ui/field';
import { ProblemAlert } from '../ui/problem-alert';
import { useApiForm } from '../ui/use-api-form';

export function SignUpPage() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { form, problem, onSubmit } = useApiForm({
    schema: ZSignupBody,
    submit: async (body) => {
      const me = await expectOk(api.POST('/api/v1/auth/signup', { body }));
      chooseWorkspace(me);
      queryClient.setQueryData(ME_KEY, me);
      await navigate('/agents');
    },
  });
  const { errors, isSubmitting } = form.formState;
  return (
    <main className="auth">
      <h1>Sign up</h1>
      <form onSubmit={(event) => void onSubmit(event)} noValidate>
        <ProblemAlert problem={problem} />
        <Field label="Name" error={errorAt(errors, 'name')}>
          <input autoComplete="name" {...form.register('name', optionalText)} />
        </Field>
        <Field label="Email" error={errorAt(errors, 'email')}>
          <input type="email" autoComplete="username" {...form.register('email')} />
        </Field>
        <Field label="Password" error={errorAt(errors, 'password')} hint="8 to 256 characters">
          <input type="password" autoComplete="new-password" {...form.register('password')} />
        </Field>
        <button type="submit" disabled={isSubmitting}>
          Sign up
        </button>
      </form>
      <p>
        Have an account? <Link to="/sign-in">Sign in</Link>
      </p>
    </main>
  );
}
