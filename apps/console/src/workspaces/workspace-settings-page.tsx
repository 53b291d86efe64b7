// The active workspace's settings: its name and the guardrails every agent in it applies besides its own.
// Admins and owners change them (a change of defaults republishes every agent of the workspace); the
// others read.
import { ZWorkspaceUpdate } from '@agentplane/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { FieldValues, UseFormReturn } from 'react-hook-form';
import { Link } from 'react-router';
import { CheckboxGroup } from '../agents/resource-pickers';
import { api, expectOk, type Schemas } from '../api/api-client';
import { problemOf } from '../api/api-problem';
import { activeWorkspaceId } from '../session/active-workspace';
import { ME_KEY, useRole } from '../session/use-me';
import { errorAt, Field } from '../ui/field';
import { ProblemAlert } from '../ui/problem-alert';
import { useApiForm } from '../ui/use-api-form';

const workspaceKey = (id: string) => ['workspaces', id] as const;

export function WorkspaceSettingsPage() {
  const id = activeWorkspaceId() ?? '';
  const { canAdmin } = useRole();
  // Kept here: a save remounts the form with what the server answered.
  const [savedVersion, setSavedVersion] = useState<string | undefined>();
  const workspace = useQuery({
    queryKey: workspaceKey(id),
    queryFn: () => expectOk(api.GET('/api/v1/workspaces/{id}', { params: { path: { id } } })),
    enabled: id !== '',
  });
  return (
    <section>
      <h1>Workspace settings</h1>
      {workspace.error && <ProblemAlert problem={problemOf(workspace.error)} />}
      {workspace.data ? (
        // Remounted with what the server answered after a save.
        <SettingsForm
          key={workspace.data.updated_at}
          workspace={workspace.data}
          saved={savedVersion === workspace.data.updated_at}
          onSaved={setSavedVersion}
        />
      ) : (
        !workspace.error && <p aria-busy="true">Loading…</p>
      )}
      {canAdmin && (
        <p>
          Other systems hear of runs that end, wait for a person or hit a budget through the workspace's{' '}
          <Link to="/webhooks">webhooks</Link>.
        </p>
      )}
    </section>
  );
}

function SettingsForm(props: {
  workspace: Schemas['Workspace'];
  saved: boolean;
  onSaved: (updatedAt: string) => void;
}) {
  const { workspace } = props;
  const { canAdmin } = useRole();
  const queryClient = useQueryClient();
  const editor = useApiForm({
    schema: ZWorkspaceUpdate,
    defaultValues: { name: workspace.name, default_guardrail_ids: workspace.default_guardrail_ids ?? [] },
    disabled: !canAdmin,
    submit: async (body) => {
      const updated = await expectOk(
        api.PATCH('/api/v1/workspaces/{id}', { params: { path: { id: workspace.id } }, body }),
      );
      props.onSaved(updated.updated_at);
      // The switcher shows the name; every agent got a new engine_config version; the guardrails' pages
      // may show where they are used.
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ME_KEY }),
        queryClient.invalidateQueries({ queryKey: workspaceKey(workspace.id) }),
        queryClient.invalidateQueries({ queryKey: ['agents'] }),
      ]);
    },
  });
  const form = editor.form as unknown as UseFormReturn<FieldValues>;
  const { errors, isSubmitting } = form.formState;
  return (
    <form onSubmit={(event) => void editor.onSubmit(event)} noValidate>
      {!canAdmin && <p className="note">An admin or owner of this workspace can change its settings.</p>}
      <ProblemAlert problem={editor.problem} />
      <Field label="Name" error={errorAt(errors, 'name')}>
        <input {...form.register('name')} />
      </Field>
      <CheckboxGroup form={form} kind="guardrails" name="default_guardrail_ids" legend="Default guardrails" />
      <p className="note">Every agent of the workspace applies its default guardrails, after its own.</p>
      <div className="actions">
        <button type="submit" disabled={!canAdmin || isSubmitting}>
          Save
        </button>
        {props.saved && <span role="status">Saved.</span>}
      </div>
    </form>
  );
}
