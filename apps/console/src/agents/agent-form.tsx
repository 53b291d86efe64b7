// Create or edit an agent: its framework's fields, the resources it uses and where it is served,
// validated with the contracts' ZAgentCreate before the API sees it.
import { type TAgentFramework, ZAgentCreate } from '@agentplane/contracts';
import type { FieldValues, UseFormReturn } from 'react-hook-form';
import { errorAt, Field } from '../ui/field';
import { ProblemAlert } from '../ui/problem-alert';
import { useApiForm } from '../ui/use-api-form';
import type { Agent, AgentBody } from './agent-api';
import { DeploymentField } from './deployment-field';
import { blankAgentConfig, FRAMEWORKS, FrameworkFields } from './framework-fields';
import { ResourcePickers } from './resource-pickers';
import { ToolPolicyFields, withoutEmptyToolPolicy } from './tool-policy-fields';

const BLANK_AGENT = {
  name: '',
  description: null,
  framework: 'LLM',
  agent: blankAgentConfig('LLM'),
  resources: { integration_ids: [], mcp_server_ids: [], guardrail_ids: [], sso_id: null, observability_id: null },
  engine_url: null,
};

/** The body an agent's form edits: the response without what the server derives (a pooled agent's engine_url). */
function bodyOf(agent: Agent) {
  return {
    name: agent.name,
    description: agent.description,
    framework: agent.framework,
    agent: agent.agent,
    resources: agent.resources,
    deployment: agent.deployment,
    engine_url: agent.deployment.mode === 'pool' ? null : agent.engine_url,
  };
}

export function AgentForm(props: {
  agent?: Agent;
  canWrite: boolean;
  submitLabel: string;
  onSubmit: (body: AgentBody) => Promise<unknown>;
}) {
  const editor = useApiForm({
    schema: ZAgentCreate,
    defaultValues: (props.agent ? bodyOf(props.agent) : BLANK_AGENT) as never,
    disabled: !props.canWrite,
    submit: (body) => props.onSubmit(withoutEmptyToolPolicy(body as AgentBody)),
  });
  const form = editor.form as unknown as UseFormReturn<FieldValues>;
  const framework = form.watch('framework') as TAgentFramework;
  const { errors, isSubmitting } = form.formState;
  return (
    <form onSubmit={(event) => void editor.onSubmit(event)} noValidate>
      <ProblemAlert problem={editor.problem} />
      <Field label="Name" error={errorAt(errors, 'name')}>
        <input {...form.register('name')} />
      </Field>
      <Field label="Description" error={errorAt(errors, 'description')}>
        <input {...form.register('description', { setValueAs: (value) => (value ? value : null) })} />
      </Field>
      <Field label="Framework" error={errorAt(errors, 'framework')}>
        <select
          {...form.register('framework', {
            onChange: (event) => form.setValue('agent', blankAgentConfig(event.target.value as TAgentFramework)),
          })}
        >
          {FRAMEWORKS.map((name) => (
            <option key={name}>{name}</option>
          ))}
        </select>
      </Field>
      <FrameworkFields key={framework} form={form} framework={framework} />
      {/* Keyed too: a framework change starts a blank agent object, policy included. */}
      <ToolPolicyFields key={`tools-${framework}`} form={form} />
      <ResourcePickers form={form} />
      <DeploymentField form={form} isNew={props.agent === undefined} />
      <button type="submit" disabled={!props.canWrite || isSubmitting}>
        {props.submitLabel}
      </button>
    </form>
  );
}
