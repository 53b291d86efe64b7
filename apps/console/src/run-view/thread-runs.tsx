// The runs of the playground's open thread, each a link to its run view: also the threads opened from
// the list, whose turns were not made on this page (GET /agent/threads/{id}/runs, the user's own).
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { getFromEngine } from '../playground/engine-token';
import type { EngineRun } from './run-record';

type RunItem = Pick<EngineRun, 'id' | 'status' | 'created_at'>;

export const threadRunsKey = (engineUrl: string) => ['engine-thread-runs', engineUrl] as const;

export function ThreadRuns(props: {
  agentId: string;
  engineUrl: string;
  threadId: string;
  token: () => Promise<string>;
}) {
  const { agentId, engineUrl, threadId, token } = props;
  const runs = useQuery({
    queryKey: [...threadRunsKey(engineUrl), threadId],
    queryFn: async () =>
      getFromEngine<RunItem[]>(
        engineUrl,
        `/agent/threads/${encodeURIComponent(threadId)}/runs?limit=20`,
        await token(),
      ),
    // A thread without a run yet is unknown to the engine (404): there is nothing to list.
    retry: false,
  });
  if (!runs.data || runs.data.length === 0) return null;
  return (
    <details className="thread-runs">
      <summary>Runs of this thread ({runs.data.length})</summary>
      <ul>
        {runs.data.map((run) => (
          <li key={run.id}>
            <Link to={`/agents/${agentId}/runs/${encodeURIComponent(run.id)}`}>
              {new Date(run.created_at).toLocaleString()}
            </Link>{' '}
            {run.status}
          </li>
        ))}
      </ul>
    </details>
  );
}
