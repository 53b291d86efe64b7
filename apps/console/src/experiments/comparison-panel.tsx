// Two of the experiment's versions side by side, item by item: a base and a candidate picked from its
// versions, the counts of items that improved, regressed or stayed, filters on those verdicts and on a
// changed reply, and the items' table with their diffs. The API filters the items, then pages them.
import type { TComparisonVerdict } from '@agentplane/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { problemOf } from '../api/api-problem';
import { Pager } from '../ui/pager';
import { ProblemAlert } from '../ui/problem-alert';
import { ComparisonTable } from './comparison-table';
import { type ComparisonQuery, compareVersions, type Experiment, experimentKeys, LARGEST_PAGE } from './experiment-api';
import { finalRuns } from './experiment-status';
import { useItemQuestions } from './item-questions';

type Filter = TComparisonVerdict | 'all';
const FILTERS: Filter[] = ['all', 'improved', 'regressed', 'unchanged'];

function VersionSelect(props: { label: string; versions: number[]; value: number; onChange: (value: number) => void }) {
  const id = useId();
  return (
    <>
      <label htmlFor={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(event) => props.onChange(Number(event.target.value))}>
        {props.versions.map((version) => (
          <option key={version} value={version}>
            v{version}
          </option>
        ))}
      </select>
    </>
  );
}

function emptyMessage(query: ComparisonQuery): string {
  const replies = query.changedOnly ? ' with a changed reply' : '';
  return query.verdict === 'all' ? `No item${replies}.` : `No item is ${query.verdict}${replies}.`;
}

export function ComparisonPanel({ agentId, experiment }: { agentId: string; experiment: Experiment }) {
  const versions = experiment.agent_versions;
  const [query, setQuery] = useState<ComparisonQuery>({
    base: versions[0] ?? 1,
    candidate: versions.at(-1) ?? 1,
    verdict: 'all',
    changedOnly: false,
    offset: 0,
  });
  // Any change but the page's own starts again at the first page: the old offset means other items.
  const change = (next: Partial<Omit<ComparisonQuery, 'offset'>>) => setQuery({ ...query, ...next, offset: 0 });
  const filterId = useId();
  const changedId = useId();
  const comparison = useQuery({
    queryKey: experimentKeys.comparison(agentId, experiment.id, finalRuns(experiment.progress), query),
    queryFn: () => compareVersions(agentId, experiment.id, query),
    enabled: query.base !== query.candidate,
    placeholderData: keepPreviousData,
  });
  const data = comparison.data;
  const questions = useItemQuestions(experiment, data?.items.map((item) => item.position) ?? []);
  return (
    <section aria-labelledby="comparison-heading">
      <h3 id="comparison-heading">Comparison</h3>
      <div className="actions">
        <VersionSelect
          label="Base version"
          versions={versions}
          value={query.base}
          onChange={(base) => change({ base })}
        />
        <VersionSelect
          label="Candidate version"
          versions={versions}
          value={query.candidate}
          onChange={(candidate) => change({ candidate })}
        />
        <label htmlFor={filterId}>Show</label>
        <select
          id={filterId}
          value={query.verdict}
          onChange={(event) => change({ verdict: event.target.value as Filter })}
        >
          {FILTERS.map((each) => (
            <option key={each} value={each}>
              {each === 'all' ? 'All items' : `${each} (${data?.counts[each] ?? 0})`}
            </option>
          ))}
        </select>
        <input
          id={changedId}
          type="checkbox"
          checked={query.changedOnly}
          onChange={(event) => change({ changedOnly: event.target.checked })}
        />
        <label htmlFor={changedId}>Only changed replies ({data?.counts.reply_changed ?? 0})</label>
      </div>
      {query.base === query.candidate && <p>Pick two different versions to compare.</p>}
      {comparison.error && <ProblemAlert problem={problemOf(comparison.error)} />}
      {data && query.base !== query.candidate && (
        // Busy while the last answer stands in for the one asked (another filter, version or page).
        <div aria-busy={comparison.isPlaceholderData}>
          <p role="status">
            {data.counts.improved} improved, {data.counts.regressed} regressed, {data.counts.unchanged} unchanged of{' '}
            {data.counts.items} items; {data.counts.reply_changed} replies changed.
          </p>
          {data.items.length === 0 ? (
            <p>{emptyMessage(query)}</p>
          ) : (
            <ComparisonTable
              items={data.items}
              scorers={experiment.scorers.map((scorer) => scorer.name)}
              questions={questions}
              base={data.base}
              candidate={data.candidate}
            />
          )}
          {data.matched > LARGEST_PAGE && (
            <Pager
              offset={query.offset}
              limit={LARGEST_PAGE}
              total={data.matched}
              onChange={(offset) => setQuery({ ...query, offset })}
              label="Items"
            />
          )}
        </div>
      )}
    </section>
  );
}
