// Create (at /<kind>/new) or edit one managed resource. Secrets come masked unless a member asks to see
// them; a mask sent back unchanged keeps the stored secret, so the form never needs the real one.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { type ApiProblem, problemOf } from '../api/api-problem';
import { useRole } from '../session/use-me';
import { ConfirmDelete } from '../ui/confirm-delete';
import { errorAt, Field } from '../ui/field';
import { ProblemAlert } from '../ui/problem-alert';
import { useApiForm } from '../ui/use-api-form';
import { type Resource, type ResourceForm, resourceFormOf } from './resource-forms';
import { type ResourceKind, useResourceKind } from './resource-kinds';

/** The body a resource's form edits: the response without its read-only envelope fields. */
function bodyOf(resource: Resource, form: ResourceForm) {
  return { name: resource.name, [form.key]: resource[form.key] };
}

export function ResourceEditPage() {
  const kind = useResourceKind();
  const { id = 'new' } = useParams();
  const form = resourceFormOf(kind);
  const { canWrite } = useRole();
  const [reveal, setReveal] = useState(false);
  // Kept here: a save remounts the editor with what the server answered.
  const [savedVersion, setSavedVersion] = useState<string | undefined>();
  const query = useQuery({
    queryKey: [kind.id, id, reveal],
    queryFn: () => form.get(id, reveal ? {} : { secrets: 'masked' }),
    enabled: id !== 'new',
  });
  if (id === 'new') return <ResourceEditor kind={kind} form={form} canWrite={canWrite} />;
  if (query.error) return <ProblemAlert problem={problemOf(query.error)} />;
  if (!query.data) return <p aria-busy="true">Loading…</p>;
  return (
    <ResourceEditor
      // A new key remounts the form with the values just read (after a reveal, or a save).
      key={`${query.data.updated_at}:${reveal}`}
      kind={kind}
      form={form}
      canWrite={canWrite}
      resource={query.data}
      reveal={{ shown: reveal, toggle: () => setReveal(!reveal) }}
      saved={{ shown: savedVersion === query.data.updated_at, mark: setSavedVersion }}
    />
  );
}

function ResourceEditor(props: {
  kind: ResourceKind;
  form: ResourceForm;
  canWrite: boolean;
  resource?: Resource;
  reveal?: { shown: boolean; toggle: () => void };
  saved?: { shown: boolean; mark: (updatedAt: string) => void };
}) {
  const { kind, form, canWrite, resource } = props;
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [deleteProblem, setDeleteProblem] = useState<ApiProblem | undefined>();
  const editor = useApiForm({
    schema: form.schema,
    defaultValues: resource ? bodyOf(resource, form) : form.blank(),
    disabled: !canWrite,
    submit: async (body) => {
      if (!resource) {
        await form.create(body);
        await queryClient.invalidateQueries({ queryKey: [kind.id] });
        await navigate(`/${kind.route}`);
        return;
      }
      const updated = await form.update(resource.id, body);
      props.saved?.mark(updated.updated_at);
      // Agents using it got a new engine_config version.
      await queryClient.invalidateQueries({ queryKey: [kind.id] });
      await queryClient.invalidateQueries({ queryKey: ['agents'] });
    },
  });
  const remove = async () => {
    if (!resource) return;
    setDeleteProblem(undefined);
    try {
      await form.remove(resource.id);
      queryClient.removeQueries({ queryKey: [kind.id, resource.id] });
      await queryClient.invalidateQueries({ queryKey: [kind.id, 'list'] });
      await navigate(`/${kind.route}`);
    } catch (error) {
      setDeleteProblem(problemOf(error));
    }
  };
  const { errors, isSubmitting } = editor.form.formState;
  const Fields = form.Fields;
  return (
    <section>
      <div className="page-head">
        <h1>{resource ? resource.name : `New ${kind.singular}`}</h1>
        {resource && (
          <p>
            Used by {resource.agent_count} agent{resource.agent_count === 1 ? '' : 's'}
          </p>
        )}
      </div>
      {!canWrite && <p className="note">You are a viewer in this workspace: you can read, not change.</p>}
      {props.reveal && canWrite && (
        <button type="button" aria-pressed={props.reveal.shown} onClick={props.reveal.toggle}>
          {props.reveal.shown ? 'Mask secrets' : 'Reveal secrets'}
        </button>
      )}
      <form onSubmit={(event) => void editor.onSubmit(event)} noValidate>
        <ProblemAlert problem={editor.problem} />
        <Field label="Name" error={errorAt(errors, 'name')}>
          <input {...editor.form.register('name')} />
        </Field>
        <Fields form={editor.form} />
        <div className="actions">
          <button type="submit" disabled={!canWrite || isSubmitting}>
            {resource ? 'Save' : `Create ${kind.singular}`}
          </button>
          {props.saved?.shown && <span role="status">Saved.</span>}
        </div>
      </form>
      {resource && (
        <div className="danger-zone">
          <ProblemAlert problem={deleteProblem} />
          <ConfirmDelete
            what={`${kind.singular} ${resource.name}`}
            disabled={!canWrite}
            onConfirm={() => void remove()}
          />
        </div>
      )}
    </section>
  );
}
