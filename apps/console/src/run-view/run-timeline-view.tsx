// The timeline as a list a person (and a screen reader) reads top to bottom: each model call, each tool
// call with its arguments and result, steps, errors and the run's end. Its headings sit under the run's
// (an h2 in the agent page's Runs tab) and its Timeline heading.
import { prettyJson } from '../playground/transcript';
import type { TimelineEntry } from './run-timeline';

function Took({ entry }: { entry: { tookMs?: number } }) {
  return entry.tookMs === undefined ? null : <p className="note">Took about {entry.tookMs} ms</p>;
}

function Entry({ entry }: { entry: TimelineEntry }) {
  switch (entry.kind) {
    case 'model-call':
      return (
        <article aria-label={`Model call ${entry.number}`} className="timeline-entry model-call">
          <h4>Model call {entry.number}</h4>
          {entry.text && <p>{entry.text}</p>}
          {entry.toolCalls.length > 0 && <p className="note">Asked for: {entry.toolCalls.join(', ')}</p>}
          <Took entry={entry} />
        </article>
      );
    case 'tool-call':
      return (
        <article aria-label={`Tool call ${entry.name}`} className="timeline-entry tool-call">
          <h4>Tool call: {entry.name}</h4>
          <h5>Arguments</h5>
          <pre>{prettyJson(entry.arguments)}</pre>
          <h5>Result</h5>
          {entry.result === undefined ? <p>No result stored.</p> : <pre>{prettyJson(entry.result)}</pre>}
          <Took entry={entry} />
        </article>
      );
    case 'step':
      return (
        <article aria-label={`Step ${entry.name}`} className="timeline-entry step">
          <h4>Step: {entry.name}</h4>
          {!entry.finished && <p className="note">Not finished.</p>}
          <Took entry={entry} />
        </article>
      );
    case 'error':
      return (
        <article aria-label="Error" className="timeline-entry problem">
          <h4>Error{entry.code ? ` (${entry.code})` : ''}</h4>
          <p>{entry.message}</p>
        </article>
      );
    case 'end':
      return (
        <article aria-label="Run finished" className="timeline-entry end">
          <h4>Run finished: {entry.outcome}</h4>
        </article>
      );
  }
}

export function RunTimelineView({ entries }: { entries: TimelineEntry[] }) {
  if (entries.length === 0) return <p>No events stored for this run.</p>;
  return (
    <ol className="timeline" aria-label="Timeline">
      {entries.map((entry) => (
        <li key={entry.key}>
          <Entry entry={entry} />
        </li>
      ))}
    </ol>
  );
}
