// The agent's settings: its form (secrets masked until revealed), the engine_config the manager derived
// from it, its online scoring, its engine credentials, and deleting it.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { type ApiProblem, problemOf } from '../../api/api-problem';
import { useMe, useRole } from '../../session/use-me';
import { ConfirmDelete } from '../../ui/confirm-delete';
import { ProblemAlert } from '../../ui/problem-alert';
import { AGENTS_KEY, agentKeys, deleteAgent, getAgent, refreshAfterAgentWrite, updateAgent } from '../agent-api';
import { AgentForm } from '../agent-form';
import { useAgentOfPage } from '../agent-of-page';
import { EngineCredentials } from '../engine-credentials';
import { OnlineScoringSection } from '../online-scoring/online-scoring-section';

export function SettingsTab() {
  const agent = useAgentOfPage();
  const { canWrite } = useRole();
  // Engine credentials are a platform operator's alone; a pooled agent's engines are its pool's.
  const isPlatformOperator = useMe().data?.user.platform_operator === true;
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [reveal, setReveal] = useState(false);
  const revealed = useQuery({
    queryKey: agentKeys.one(agent.id, true),
    queryFn: () => getAgent(agent.id, true),
    enabled: reveal,
  });
  const [deleteProblem, setDeleteProblem] = useState<ApiProblem | undefined>();
  const [saved, setSaved] = useState(false);
  const shown = reveal ? revealed.data : agent;
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
    <>
      <section aria-labelledby="settings-heading">
        <h2 id="settings-heading">Settings</h2>
        {!canWrite && <p className="note">You are a viewer in this workspace: you can read, not change.</p>}
        {canWrite && (
          <button type="button" aria-pressed={reveal} onClick={() => setReveal(!reveal)}>
            {reveal ? 'Mask secrets' : 'Reveal secrets'}
          </button>
        )}
        {revealed.error && reveal && <ProblemAlert problem={problemOf(revealed.error)} />}
        {!shown && <p aria-busy="true">Loading…</p>}
        {shown && (
          <AgentForm
            // A new key remounts the form with the values just read (after a reveal, or a save).
            key={`${shown.updated_at}:${reveal}`}
            agent={shown}
            canWrite={canWrite}
            submitLabel="Save"
            onSubmit={async (body) => {
              setSaved(false);
              await updateAgent(agent.id, body);
              setSaved(true);
              await refreshAfterAgentWrite(queryClient);
            }}
          />
        )}
        {saved && <p role="status">Saved.</p>}
      </section>
      <OnlineScoringSection agentId={agent.id} canWrite={canWrite} />
      <details>
        <summary>Engine config (version {agent.engine_config_version})</summary>
        <pre>{JSON.stringify(agent.engine_config, null, 2)}</pre>
      </details>
      {isPlatformOperator && agent.deployment.mode === 'dedicated' && <EngineCredentials agentId={agent.id} />}
      <div className="danger-zone">
        <ProblemAlert problem={deleteProblem} />
        <ConfirmDelete what={`agent ${agent.name}`} disabled={!canWrite} onConfirm={() => void remove()} />
      </div>
    </>
  );
}
