// One agent: its form, the engine_config the manager derived (and its version), its engine, the
// playground, its runs and usage. At /agents/new, the form alone creates one.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { type ApiProblem, problemOf } from '../api/api-problem';
import { useMe, useRole } from '../session/use-me';
import { ConfirmDelete } from '../ui/confirm-delete';
import { ProblemAlert } from '../ui/problem-alert';
import { AgentUsagePanel } from '../usage/agent-usage';
import { AgentRuns } from './agent-activity';
import {
  AGENTS_KEY,
  type Agent,
  agentKeys,
  createAgent,
  deleteAgent,
  getAgent,
  refreshAfterAgentWrite,
  updateAgent,
} from './agent-api';
import { AgentForm } from './agent-form';
import { EngineCredentials } from './engine-credentials';
import { EngineHealth } from './engine-health';

// @ag-ui/client is the heaviest dependency: it loads with the playground, not with the page.
const Playground = lazy(() => import('../playground/playground').then((module) => ({ default: module.Playground })));

function NewAgent() {
  const { canWrite } = useRole();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return (
    <section>
      <h1>New agent</h1>
      <AgentForm
        canWrite={canWrite}
        submitLabel="Create agent"
        onSubmit={async (body) => {
          const agent = await createAgent(body);
          await refreshAfterAgentWrite(queryClient);
          await navigate(`/agents/${agent.id}`);
        }}
      />
    </section>
  );
}

function AgentDetails({ agent, reveal }: { agent: Agent; reveal: { shown: boolean; toggle: () => void } }) {
  const { canWrite } = useRole();
  // Engine credentials are a platform operator's alone; a pooled agent's engines are its pool's.
  const isPlatformOperator = useMe().data?.user.platform_operator === true;
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [deleteProblem, setDeleteProblem] = useState<ApiProblem | undefined>();
  const [saved, setSaved] = useState(false);
  const remove = async () => {
    try {
      await deleteAgent(agent.id);
      queryClient.removeQueries({ queryKey: [AGENTS_KEY, agent.id] });
      await refreshAfterAgentWrite(queryClient);
      await navigate('/agents');
    } catch (error) {
      setDeleteProblem(problemOf(error));
    }
  };
  return (
    <section>
      <div className="page-head">
        <h1>{agent.name}</h1>
        <p className="version">Config version {agent.engine_config_version}</p>
      </div>
      <EngineHealth engineUrl={agent.engine_url} publishedVersion={agent.engine_config_version} />
      {agent.engine_url && (
        <Suspense fallback={<p aria-busy="true">Loading the playground…</p>}>
          <Playground agentId={agent.id} engineUrl={agent.engine_url} />
        </Suspense>
      )}
      <section aria-labelledby="settings-heading">
        <h2 id="settings-heading">Settings</h2>
        {!canWrite && <p className="note">You are a viewer in this workspace: you can read, not change.</p>}
        {canWrite && (
          <button type="button" aria-pressed={reveal.shown} onClick={reveal.toggle}>
            {reveal.shown ? 'Mask secrets' : 'Reveal secrets'}
          </button>
        )}
        <AgentForm
          // A new key remounts the form with the values just read (after a reveal, or a save).
          key={`${agent.updated_at}:${reveal.shown}`}
          agent={agent}
          canWrite={canWrite}
          submitLabel="Save"
          onSubmit={async (body) => {
            setSaved(false);
            await updateAgent(agent.id, body);
            setSaved(true);
            await refreshAfterAgentWrite(queryClient);
          }}
        />
        {saved && <p role="status">Saved.</p>}
      </section>
      <details>
        <summary>Engine config (version {agent.engine_config_version})</summary>
        <pre>{JSON.stringify(agent.engine_config, null, 2)}</pre>
      </details>
      <AgentRuns agentId={agent.id} />
      <AgentUsagePanel agentId={agent.id} />
      {isPlatformOperator && agent.deployment.mode === 'dedicated' && <EngineCredentials agentId={agent.id} />}
      <div className="danger-zone">
        <ProblemAlert problem={deleteProblem} />
        <ConfirmDelete what={`agent ${agent.name}`} disabled={!canWrite} onConfirm={() => void remove()} />
      </div>
    </section>
  );
}

export function AgentPage() {
  const { id = 'new' } = useParams();
  const [reveal, setReveal] = useState(false);
  const query = useQuery({
    queryKey: agentKeys.one(id, reveal),
    queryFn: () => getAgent(id, reveal),
    enabled: id !== 'new',
  });
  if (id === 'new') return <NewAgent />;
  if (query.error) return <ProblemAlert problem={problemOf(query.error)} />;
  if (!query.data) return <p aria-busy="true">Loading…</p>;
  return <AgentDetails agent={query.data} reveal={{ shown: reveal, toggle: () => setReveal(!reveal) }} />;
}
