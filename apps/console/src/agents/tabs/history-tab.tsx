// The agent's history: every version of what it runs (who, when, why), what changed between two of
// them, and, for those who may write, a rollback that publishes an old version's settings as a new one.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type ApiProblem, problemOf } from '../../api/api-problem';
import { useRole } from '../../session/use-me';
import { EmptyState } from '../../ui/empty-state';
import { PagedTable } from '../../ui/paged-table';
import { ProblemAlert } from '../../ui/problem-alert';
import { refreshAfterAgentWrite } from '../agent-api';
import { useAgentOfPage } from '../agent-of-page';
import { type AgentVersionRow, diffAgentVersions, listAgentVersions, rollbackAgent, versionKeys } from '../version-api';

type Comparison = { version: number; against: number };

function causeOf(row: AgentVersionRow): string {
  return row.rolled_back_from === null ? row.cause : `${row.cause} to v${row.rolled_back_from}`;
}

function VersionDiff({ agentId, comparison }: { agentId: string; comparison: Comparison }) {
  const { version, against } = comparison;
  const diff = useQuery({
    queryKey: versionKeys.diff(agentId, version, against),
    queryFn: () => diffAgentVersions(agentId, version, against),
  });
  return (
    <section aria-labelledby="diff-heading">
      <h3 id="diff-heading">
        Changes from v{against} to v{version}
      </h3>
      {diff.error && <ProblemAlert problem={problemOf(diff.error)} />}
      {diff.data?.patch.length === 0 && <p>No changes.</p>}
      {diff.data && diff.data.patch.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Change</th>
              <th scope="col">Path</th>
              <th scope="col">New value</th>
            </tr>
          </thead>
          <tbody>
            {diff.data.patch.map((operation) => (
              <tr key={`${operation.op}:${operation.path}`}>
                <td>{operation.op}</td>
                <td>
                  <code>{operation.path}</code>
                </td>
                <td>{operation.value === undefined ? '' : <code>{JSON.stringify(operation.value)}</code>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="note">
        Secrets show as masks. Resources (integrations, MCP servers…) are shared by agents: a rollback restores which
        ones the agent uses, not their settings.
      </p>
    </section>
  );
}

function RollbackForm(props: { agentId: string; version: number; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [message, setMessage] = useState('');
  const [problem, setProblem] = useState<ApiProblem | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      await rollbackAgent(props.agentId, props.version, message);
      await refreshAfterAgentWrite(queryClient);
      props.onDone();
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={(event) => void submit(event)} aria-label={`Roll back to version ${props.version}`}>
      <label htmlFor="rollback-message">Why (optional)</label>
      <input
        id="rollback-message"
        name="message"
        maxLength={1000}
        value={message}
        onChange={(event) => setMessage(event.target.value)}
      />
      <ProblemAlert problem={problem} />
      <button type="submit" disabled={busy}>
        Roll back to v{props.version}
      </button>
      <button type="button" onClick={props.onDone}>
        Cancel
      </button>
    </form>
  );
}

export function HistoryTab() {
  const agent = useAgentOfPage();
  const { canWrite } = useRole();
  const [comparison, setComparison] = useState<Comparison | undefined>();
  const [rollingBackTo, setRollingBackTo] = useState<number | undefined>();
  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      <PagedTable<AgentVersionRow>
        caption="Versions"
        queryKey={versionKeys.list(agent.id)}
        fetchPage={(offset, limit) => listAgentVersions(agent.id, offset, limit)}
        empty={
          <EmptyState title="No versions kept">
            <p>Every change to what the agent runs records a version here.</p>
          </EmptyState>
        }
        columns={[
          { header: 'Version', cell: (row) => `v${row.version}${row.current ? ' (current)' : ''}` },
          { header: 'Time', cell: (row) => new Date(row.created_at).toLocaleString() },
          { header: 'Author', cell: (row) => row.author?.name ?? row.author?.email ?? 'platform' },
          { header: 'Cause', cell: causeOf },
          { header: 'Message', cell: (row) => row.message ?? '' },
          {
            header: 'Actions',
            cell: (row) => (
              <>
                {row.version > 1 && (
                  <button
                    type="button"
                    onClick={() => setComparison({ version: row.version, against: row.version - 1 })}
                  >
                    Changes
                  </button>
                )}
                {canWrite && !row.current && (
                  <button type="button" onClick={() => setRollingBackTo(row.version)}>
                    Roll back…
                  </button>
                )}
              </>
            ),
          },
        ]}
      />
      {rollingBackTo !== undefined && (
        <RollbackForm agentId={agent.id} version={rollingBackTo} onDone={() => setRollingBackTo(undefined)} />
      )}
      {comparison && <VersionDiff agentId={agent.id} comparison={comparison} />}
    </section>
  );
}
