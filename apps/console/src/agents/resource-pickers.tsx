// Which managed resources the agent uses: a checkbox per integration, MCP server and guardrail, one SSO
// config, one observability config.
import { useQuery } from '@tanstack/react-query';
import type { FieldValues, UseFormReturn } from 'react-hook-form';
import { Link } from 'react-router';
import { resourceFormOf } from '../resources/resource-forms';
import { RESOURCE_KINDS, type ResourceKind } from '../resources/resource-kinds';
import { errorAt, Field } from '../ui/field';
import { linesError } from '../ui/list-fields';

// A picker offers the first page; a workspace with more than this names the rest by editing the body.
const PICKER_LIMIT = '100';

function kindOf(id: ResourceKind['id']): ResourceKind {
  const kind = RESOURCE_KINDS.find((candidate) => candidate.id === id);
  if (!kind) throw new Error(`no resource kind ${id}`);
  return kind;
}

function useOptions(id: ResourceKind['id']) {
  const form = resourceFormOf(kindOf(id));
  return useQuery({
    queryKey: [id, 'options'],
    queryFn: () => form.list({ limit: PICKER_LIMIT, offset: '0', secrets: 'masked' }),
  });
}

/** A checkbox per resource of a kind in the workspace, for a list of ids (legend: the kind's title). */
export function CheckboxGroup(props: {
  form: UseFormReturn<FieldValues>;
  kind: ResourceKind['id'];
  name: string;
  legend?: string;
}) {
  const options = useOptions(props.kind);
  const kind = kindOf(props.kind);
  // The server names a refused id by its place in the list (resources.guardrail_ids[1]).
  const error = linesError(props.form.formState.errors, props.name, () => '');
  return (
    <fieldset>
      <legend>{props.legend ?? kind.title}</legend>
      {options.data?.items.length === 0 && (
        <p className="note">
          None in this workspace yet: create one on the <Link to={`/${kind.route}`}>{kind.title}</Link> page, then pick
          it here.
        </p>
      )}
      {options.data?.items.map((resource) => (
        <div className="checkbox" key={resource.id}>
          <input
            id={`${props.name}-${resource.id}`}
            type="checkbox"
            value={resource.id}
            {...props.form.register(props.name)}
          />
          <label htmlFor={`${props.name}-${resource.id}`}>{resource.name}</label>
        </div>
      ))}
      {error && <span className="field-error">{error}</span>}
    </fieldset>
  );
}

/** A resource the agent uses at most one of (an SSO config, an observability config), or none. */
function SinglePicker(props: {
  form: UseFormReturn<FieldValues>;
  kind: ResourceKind['id'];
  name: string;
  label: string;
  none: string;
}) {
  const options = useOptions(props.kind);
  // Rendered once its options are there, so that the stored choice shows selected.
  if (!options.data) return null;
  return (
    <Field label={props.label} error={errorAt(props.form.formState.errors, props.name)}>
      <select {...props.form.register(props.name, { setValueAs: (value) => (value ? value : null) })}>
        <option value="">{props.none}</option>
        {options.data.items.map((resource) => (
          <option key={resource.id} value={resource.id}>
            {resource.name}
          </option>
        ))}
      </select>
    </Field>
  );
}

export function ResourcePickers({ form }: { form: UseFormReturn<FieldValues> }) {
  return (
    <>
      <CheckboxGroup form={form} kind="integrations" name="resources.integration_ids" />
      <CheckboxGroup form={form} kind="mcp-servers" name="resources.mcp_server_ids" />
      <CheckboxGroup form={form} kind="guardrails" name="resources.guardrail_ids" />
      <SinglePicker
        form={form}
        kind="sso"
        name="resources.sso_id"
        label="SSO config"
        none="None (the engine's own settings)"
      />
      <SinglePicker
        form={form}
        kind="observability"
        name="resources.observability_id"
        label="Observability config"
        none="None (no traces exported)"
      />
    </>
  );
}
