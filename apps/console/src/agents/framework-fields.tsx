// The `agent` object's fields, one set per framework.
import { AGENT_FRAMEWORKS, LLM_PROVIDERS, type TAgentFramework } from '@agentplane/contracts';
import type { FieldValues, UseFormReturn } from 'react-hook-form';
import { errorAt, Field, optionalNumber, optionalText } from '../ui/field';

export const FRAMEWORKS = AGENT_FRAMEWORKS;

/** A new agent object when the framework changes: the other frameworks' fields do not carry over. */
export function blankAgentConfig(framework: TAgentFramework): Record<string, unknown> {
  switch (framework) {
    case 'LLM':
      return { model: { provider: 'mock', name: '' } };
    case 'LANGGRAPH':
      return { graph: '' };
    case 'CUSTOM':
      return { module: '' };
  }
}

type Props = { form: UseFormReturn<FieldValues> };

function LlmFields({ form }: Props) {
  const { register } = form;
  const error = (name: string) => errorAt(form.formState.errors, `agent.${name}`);
  return (
    <fieldset>
      <legend>LLM agent</legend>
      <Field label="Model provider" error={error('model.provider')}>
        <select {...register('agent.model.provider')}>
          {LLM_PROVIDERS.map((provider) => (
            <option key={provider}>{provider}</option>
          ))}
        </select>
      </Field>
      <Field
        label="Model name"
        error={error('model.name')}
        hint='Such as "gpt-4o-mini"; the mock model answers any name'
      >
        <input {...register('agent.model.name')} />
      </Field>
      <Field label="Base URL" error={error('model.baseUrl')} hint="An OpenAI-compatible server of your own">
        <input {...register('agent.model.baseUrl', optionalText)} />
      </Field>
      <Field label="API key" error={error('model.apiKey')}>
        <input autoComplete="off" {...register('agent.model.apiKey', optionalText)} />
      </Field>
      <Field
        label="API key variable"
        error={error('model.apiKeyEnv')}
        hint="One the operator lists in MODEL_API_KEY_ENVS"
      >
        <input {...register('agent.model.apiKeyEnv', optionalText)} />
      </Field>
      <Field label="Instructions" error={error('instructions')}>
        <textarea rows={4} {...register('agent.instructions', optionalText)} />
      </Field>
      <Field label="Temperature" error={error('temperature')}>
        <input type="number" step="any" {...register('agent.temperature', optionalNumber)} />
      </Field>
      <Field label="Max steps" error={error('maxSteps')}>
        <input type="number" {...register('agent.maxSteps', optionalNumber)} />
      </Field>
    </fieldset>
  );
}

/** LANGGRAPH's graph and CUSTOM's module: one reference to an export of a module in the engine. */
function ModuleFields({ form, legend, label, name }: Props & { legend: string; label: string; name: string }) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      <Field
        label={label}
        error={errorAt(form.formState.errors, name)}
        hint='"path/to/module.js:exportName" in the engine'
      >
        <input {...form.register(name)} />
      </Field>
    </fieldset>
  );
}

export function FrameworkFields({ form, framework }: Props & { framework: TAgentFramework }) {
  switch (framework) {
    case 'LLM':
      return <LlmFields form={form} />;
    case 'LANGGRAPH':
      return <ModuleFields form={form} legend="LangGraph agent" label="Graph" name="agent.graph" />;
    case 'CUSTOM':
      return <ModuleFields form={form} legend="Custom agent" label="Module" name="agent.module" />;
  }
}
