// The agent's tool policy (agent.tools): three lists of `<server>__<tool>` patterns, one per line.
import type { FieldValues, UseFormReturn } from 'react-hook-form';
import { LinesField, linesError } from '../ui/list-fields';

const LISTS = [
  { key: 'allow', label: 'Allowed tools', hint: 'When set, only these are offered to the model' },
  { key: 'deny', label: 'Denied tools', hint: 'Never offered, and refused if called anyway' },
  { key: 'approval', label: 'Tools needing approval', hint: 'Stored for now: no run pauses on it yet' },
] as const;

export function ToolPolicyFields({ form }: { form: UseFormReturn<FieldValues> }) {
  return (
    <fieldset>
      <legend>Tool policy</legend>
      {LISTS.map(({ key, label, hint }) => (
        <LinesField
          key={key}
          control={form.control}
          name={`agent.tools.${key}`}
          label={label}
          hint={`${hint}. One "server__tool" pattern per line; * matches any characters`}
          error={linesError(form.formState.errors, `agent.tools.${key}`)}
          emptyAsAbsent
        />
      ))}
    </fieldset>
  );
}

/** The body without a policy whose lists are all left empty: an untouched form changes no agent's config. */
export function withoutEmptyToolPolicy<B extends { agent: Record<string, unknown> }>(body: B): B {
  const tools = body.agent.tools as Record<string, unknown> | undefined;
  if (tools === undefined || Object.values(tools).some((list) => list !== undefined)) return body;
  const { tools: _empty, ...agent } = body.agent;
  return { ...body, agent };
}
