// The experiment's results saved as a file, JSON Lines or CSV (one column per scorer).
import { useState } from 'react';
import { problemOf } from '../api/api-problem';
import { ProblemAlert } from '../ui/problem-alert';
import { downloadExport, type Experiment, type ExportFormat } from './experiment-api';

const FORMATS: { format: ExportFormat; label: string }[] = [
  { format: 'jsonl', label: 'Export as JSONL' },
  { format: 'csv', label: 'Export as CSV' },
];

export function ExportButtons({ agentId, experiment }: { agentId: string; experiment: Experiment }) {
  const [failure, setFailure] = useState<unknown>();
  return (
    <>
      <div className="actions">
        {FORMATS.map(({ format, label }) => (
          <button
            key={format}
            type="button"
            onClick={() => {
              setFailure(undefined);
              void downloadExport(agentId, experiment, format).catch(setFailure);
            }}
          >
            {label}
          </button>
        ))}
      </div>
      <ProblemAlert problem={problemOf(failure)} />
    </>
  );
}
