// Where the agent is served: one of the operator's pools (it answers at once, at an engine_url derived
// from the pool's), or an engine of its own, whose URL the form then asks for. A new agent may leave it
// to the workspace's default, else the operator's.
import type { TDeployment } from '@agentplane/contracts';
import { useQuery } from '@tanstack/react-query';
import type { FieldValues, UseFormReturn } from 'react-hook-form';
import { api, expectOk } from '../api/api-client';
import { activeWorkspaceId } from '../session/active-workspace';
import { errorAt, Field, optionalText } from '../ui/field';

const DEDICATED = 'dedicated';
const DEFAULT = '';

function optionOf(deployment: TDeployment | undefined): string {
  if (deployment === undefined) return DEFAULT;
  return deployment.mode === 'pool' ? `pool:${deployment.pool}` : DEDICATED;
}

function deploymentOf(option: string): TDeployment | undefined {
  if (option === DEFAULT) return undefined;
  return option === DEDICATED ? { mode: 'dedicated' } : { mode: 'pool', pool: option.slice('pool:'.length) };
}

function describe(deployment: TDeployment): string {
  return deployment.mode === 'pool' ? `pool ${deployment.pool}` : 'a dedicated engine';
}

/** What a new agent gets when its create leaves deployment out: the workspace's default, else the operator's. */
function useDefaultDeployment(pools: { default_deployment: TDeployment } | undefined) {
  const id = activeWorkspaceId() ?? '';
  const workspace = useQuery({
    queryKey: ['workspaces', id],
    queryFn: () => expectOk(api.GET('/api/v1/workspaces/{id}', { params: { path: { id } } })),
    enabled: id !== '',
  });
  return workspace.data?.default_deployment ?? pools?.default_deployment;
}

export function DeploymentField(props: { form: UseFormReturn<FieldValues>; isNew: boolean }) {
  const { form } = props;
  const pools = useQuery({
    queryKey: ['engine-pools'],
    queryFn: () => expectOk(api.GET('/api/v1/engine-pools/')),
    staleTime: 60_000,
  });
  const fallback = useDefaultDeployment(pools.data);
  const chosen = form.watch('deployment') as TDeployment | undefined;
  const effective = chosen ?? (props.isNew ? fallback : undefined);
  const choose = (option: string) => {
    const deployment = deploymentOf(option);
    form.setValue('deployment', deployment, { shouldDirty: true });
    // A pooled agent's engine_url is its pool's: the form sends none.
    if (deployment?.mode === 'pool' || (deployment === undefined && fallback?.mode === 'pool')) {
      form.setValue('engine_url', null);
    }
  };
  const names = pools.data?.pools.map((pool) => pool.name) ?? [];
  // The agent's own pool stays on offer even when the operator no longer lists it.
  if (chosen?.mode === 'pool' && !names.includes(chosen.pool)) names.push(chosen.pool);
  return (
    <>
      <Field
        label="Deployment"
        error={errorAt(form.formState.errors, 'deployment.pool') ?? errorAt(form.formState.errors, 'deployment')}
        hint="A pool serves the agent as soon as it is saved; a dedicated engine is one the operator deploys for it"
      >
        <select value={optionOf(chosen)} onChange={(event) => choose(event.target.value)}>
          {props.isNew && (
            <option value={DEFAULT}>Workspace default{fallback ? ` (${describe(fallback)})` : ''}</option>
          )}
          {names.map((name) => (
            <option key={name} value={`pool:${name}`}>
              Pool {name}
            </option>
          ))}
          <option value={DEDICATED}>Dedicated engine</option>
        </select>
      </Field>
      {effective?.mode !== 'pool' && (
        <Field
          label="Engine URL"
          error={errorAt(form.formState.errors, 'engine_url')}
          hint="Where this agent's engine answers, for the playground"
        >
          <input {...form.register('engine_url', { setValueAs: (value) => optionalText.setValueAs(value) ?? null })} />
        </Field>
      )}
    </>
  );
}
