// Two of the experiment's versions side by side, item by item: a base and a candidate picked from its
// versions, the counts of items that improved, regressed or stayed, a filter on those verdicts, and the
// items' table with their diffs. The API pages the items; a page of the largest size is filtered here.
import type { TComparisonVerdict } from '@agentplane/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { problemOf } from '../api/api-problem';
import { Pager } from '../ui/pager';
import { ProblemAlert } from '../ui/problem-alert';
import { ComparisonTable } from './comparison-table';
import { compareVersions, type Experiment, experimentKeys, LARGEST_PAGE } from './experiment-api';
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

export function ComparisonPanel({ agentId, experiment }: { agentId: string; experiment: Experiment }) {
  const versions = experiment.agent_versions;
  const [base, setBase] = useState(versions[0] ?? 1);
  const [candidate, setCandidate] = useState(versions.at(-1) ?? 1);
  const [filter, setFilter] = useState<Filter>('all');
  const [offset, setOffset] = useState(0);
  const filterId = useId();
  const comparison = useQuery({
    queryKey: experimentKeys.comparison(agentId, experiment.id, finalRuns(experiment.progress), {
      base,
      candidate,
      offset,
    }),
    queryFn: () => compareVersions(agentId, experiment.id, base, candidate, offset),
    enabled: base !== candidate,
    placeholderData: keepPreviousData,
  });
  const questions = useItemQuestions(experiment, offset);
  const data = comparison.data;
  const items = data?.items.filter((item) => filter === 'all' || item.verdict === filter) ?? [];
  return (
    <section aria-labelledby="comparison-heading">
      <h3 id="comparison-heading">Comparison</h3>
      <div className="actions">
        <VersionSelect label="Base version" versions={versions} value={base} onChange={setBase} />
        <VersionSelect label="Candidate version" versions={versions} value={candidate} onChange={setCandidate} />
        <label htmlFor={filterId}>Show</label>
        <select id={filterId} value={filter} onChange={(event) => setFilter(event.target.value as Filter)}>
          {FILTERS.map((each) => (
            <option key={each} value={each}>
              {each === 'all' ? 'All items' : `${each} (${data?.counts[each] ?? 0})`}
            </option>
          ))}
        </select>
      </div>
      {base === candidate && <p>Pick two different versions to compare.</p>}
      {comparison.error && <ProblemAlert problem={problemOf(comparison.error)} />}
      {data && base !== candidate && (
        <>
          <p role="status">
            {data.counts.improved} improved, {data.counts.regressed} regressed, {data.counts.unchanged} unchanged of{' '}
            {data.counts.items} items; {data.counts.reply_changed} replies changed.
          </p>
          {items.length === 0 ? (
            <p>No item on this page is {filter}.</p>
          ) : (
            <ComparisonTable
              items={items}
              scorers={experiment.scorers.map((scorer) => scorer.name)}
              questions={questions}
              base={data.base}
              candidate={data.candidate}
            />
          )}
          {data.counts.items > LARGEST_PAGE && (
            <Pager offset={offset} limit={LARGEST_PAGE} total={data.counts.items} onChange={setOffset} label="Items" />
          )}
        </>
      )}
    </section>
  );
}
