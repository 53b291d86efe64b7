// One run, at /agents/{id}/runs/{runId} in the agent page's Runs tab: its record and a timeline built from
// its stored events, both read from the agent's engine with the signed-in user's engine token, as the
// playground reads threads.
// The manager holds no conversation content; the engine shows a user only the runs that user made.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useAgentOfPage } from '../agents/agent-of-page';
import { engineTokenSource } from '../playground/engine-token';
import { GuardrailActions } from './guardrail-actions';
import { readRunEvents, type StoredRunEvent } from './run-events';
import { type EngineRun, isFinal, readRunRecord } from './run-record';
import { buildTimeline } from './run-timeline';
import { RunTimelineView } from './run-timeline-view';

const formatTime = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');
const between = (from: string | null, to: string | null) =>
  from && to ? `${Date.parse(to) - Date.parse(from)} ms` : '—';

function RunFacts({ run }: { run: EngineRun }) {
  const usage = run.usage;
  return (
    <dl className="figures">
      <dt>Status</dt>
      <dd>{run.status}</dd>
      <dt>Source</dt>
      <dd>{run.source}</dd>
      <dt>Created</dt>
      <dd>{formatTime(run.created_at)}</dd>
      <dt>Waited</dt>
      <dd>{between(run.created_at, run.started_at)}</dd>
      <dt>Duration</dt>
      <dd>{between(run.started_at, run.finished_at)}</dd>
      <dt>Model calls</dt>
      <dd>{usage?.model_calls ?? '—'}</dd>
      <dt>Tokens in / out</dt>
      <dd>{usage ? `${usage.input_tokens ?? 0} / ${usage.output_tokens ?? 0}` : '—'}</dd>
      {run.guardrail_actions && run.guardrail_actions.length > 0 && (
        <>
          <dt>Guardrails</dt>
          <dd>
            <GuardrailActions actions={run.guardrail_actions} />
          </dd>
        </>
      )}
      {usage?.model && (
        <>
          <dt>Model</dt>
          <dd>{usage.model}</dd>
        </>
      )}
    </dl>
  );
}

/** The run's events, as they are read: all of a finished run's at once, a live run's as they come. */
function useRunEvents(engineUrl: string, runId: string, token: () => Promise<string>, onEnd: () => void) {
  const [events, setEvents] = useState<StoredRunEvent[]>([]);
  const [state, setState] = useState<{ done: boolean; error?: Error }>({ done: false });
  useEffect(() => {
    const abort = new AbortController();
    setEvents([]);
    setState({ done: false });
    void (async () => {
      try {
        await readRunEvents({
          engineUrl,
          runId,
          token,
          signal: abort.signal,
          onEvents: (batch) => setEvents((read) => [...read, ...batch]),
        });
        setState({ done: true });
        onEnd();
      } catch (error) {
        if (!abort.signal.aborted) setState({ done: true, error: error as Error });
      }
    })();
    return () => abort.abort();
  }, [engineUrl, runId, token, onEnd]);
  return { events, ...state };
}

function RunView({ agentId, engineUrl, runId }: { agentId: string; engineUrl: string; runId: string }) {
  const token = useMemo(() => engineTokenSource(agentId), [agentId]);
  const queryClient = useQueryClient();
  const recordKey = useMemo(() => ['engine-run', engineUrl, runId], [engineUrl, runId]);
  const record = useQuery({
    queryKey: recordKey,
    queryFn: async () => readRunRecord(engineUrl, runId, await token()),
    retry: false,
  });
  // A live run's stream ends with the run: its record is read again for the final status.
  const onEnd = useMemo(
    () => () => void queryClient.invalidateQueries({ queryKey: recordKey }),
    [queryClient, recordKey],
  );
  const events = useRunEvents(engineUrl, runId, token, onEnd);
  const startedAt = record.data?.started_at ?? undefined;
  const timeline = useMemo(
    () => buildTimeline(events.events, startedAt === undefined ? undefined : Date.parse(startedAt)),
    [events.events, startedAt],
  );
  if (record.error)
    return (
      <p role="alert" className="problem">
        The engine cannot show this run: {record.error.message}
      </p>
    );
  if (!record.data) return <p aria-busy="true">Loading the run…</p>;
  return (
    <>
      <RunFacts run={record.data} />
      {record.data.error && (
        <p role="alert" className="problem">
          The run failed: {record.data.error}
        </p>
      )}
      <section aria-labelledby="timeline-heading">
        <h3 id="timeline-heading">Timeline</h3>
        {events.error && (
          <p role="alert" className="problem">
            The run's events cannot be read: {events.error.message}
          </p>
        )}
        <RunTimelineView entries={timeline} />
        {!events.done && !isFinal(record.data.status) && <p aria-busy="true">The run is still going…</p>}
      </section>
    </>
  );
}

export function RunViewPage() {
  const { runId = '' } = useParams();
  const agent = useAgentOfPage();
  return (
    <section aria-labelledby="run-heading">
      <p>
        <Link to={`/agents/${agent.id}/runs`}>Back to runs</Link>
      </p>
      <div className="page-head">
        <h2 id="run-heading">Run {runId.slice(0, 8)}</h2>
        <p className="version">{runId}</p>
      </div>
      {agent.engine_url ? (
        <RunView agentId={agent.id} engineUrl={agent.engine_url} runId={runId} />
      ) : (
        <p>This agent has no engine to read its runs from.</p>
      )}
    </section>
  );
}
