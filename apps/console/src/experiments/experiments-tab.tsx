// The agent's experiments: their list, and for members a form that launches one (it opens the new
// experiment's page), a cancel and a delete.
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useAgentOfPage } from '../agents/agent-of-page';
import { useRole } from '../session/use-me';
import { ProblemAlert } from '../ui/problem-alert';
import { useRowWrite } from '../ui/use-row-write';
import {
  cancelExperiment,
  createExperiment,
  deleteExperiment,
  type ExperimentBody,
  experimentKeys,
} from './experiment-api';
import { ExperimentForm } from './experiment-form';
import { ExperimentsTable } from './experiments-table';

export function ExperimentsTab() {
  const agent = useAgentOfPage();
  const { canWrite } = useRole();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [launching, setLaunching] = useState(false);
  const { busy, status, problem, write } = useRowWrite(() =>
    queryClient.invalidateQueries({ queryKey: experimentKeys.list(agent.id) }),
  );
  // The form's own problems stay on the form, so its submit rethrows.
  const launch = async (body: ExperimentBody) => {
    const created = await createExperiment(agent.id, body);
    await queryClient.invalidateQueries({ queryKey: experimentKeys.list(agent.id) });
    await navigate(`/agents/${agent.id}/experiments/${created.id}`);
  };

  return (
    <section aria-labelledby="experiments-heading">
      <h2 id="experiments-heading">Experiments</h2>
      {!canWrite && <p className="note">You are a viewer in this workspace: you can read, not change.</p>}
      <ProblemAlert problem={problem} />
      {status && <p role="status">{status}</p>}
      <ExperimentsTable
        agentId={agent.id}
        actions={{
          canWrite,
          busy,
          onCancel: (experiment) =>
            void write(`Cancelling experiment ${experiment.name}.`, () => cancelExperiment(agent.id, experiment.id)),
          onDelete: (experiment) =>
            void write(`Deleted experiment ${experiment.name}.`, () => deleteExperiment(agent.id, experiment.id)),
        }}
      />
      {canWrite && !launching && (
        <button type="button" onClick={() => setLaunching(true)}>
          New experiment
        </button>
      )}
      {launching && (
        <>
          <h3>New experiment</h3>
          <ExperimentForm agentId={agent.id} onSubmit={launch} onCancel={() => setLaunching(false)} />
        </>
      )}
    </section>
  );
}
