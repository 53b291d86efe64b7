import { ZWorkspaceBody } from '@agentplane/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, expectOk } from '../api/api-client';
import { chooseWorkspace } from '../session/active-workspace';
import { ME_KEY } from '../session/use-me';
import { errorAt, Field } from '../ui/field';
import { ProblemAlert } from '../ui/problem-alert';
import { useApiForm } from '../ui/use-api-form';

export function CreateWorkspacePage() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { form, problem, onSubmit } = useApiForm({
    schema: ZWorkspaceBody,
    submit: async (body) => {
      const workspace = await expectOk(api.POST('/api/v1/workspaces/', { body }));
      const me = await expectOk(api.GET('/api/v1/auth/me'));
      // The new workspace becomes the one the console acts in.
      chooseWorkspace(me, workspace.id);
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== ME_KEY[0] });
      queryClient.setQueryData(ME_KEY, me);
      await navigate('/agents');
    },
  });
  return (
    <section>
      <h1>Create workspace</h1>
      <form onSubmit={(event) => void onSubmit(event)} noValidate>
        <ProblemAlert problem={problem} />
        <Field label="Name" error={errorAt(form.formState.errors, 'name')}>
          <input {...form.register('name')} />
        </Field>
        <button type="submit" disabled={form.formState.isSubmitting}>
          Create workspace
        </button>
      </form>
    </section>
  );
}
