// The Settings tab's online scoring section: the form, and how the sampled runs' queue stands (waiting,
// and dropped because it was full). Scores show in the Runs tab and the Usage tab.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { problemOf } from '../../api/api-problem';
import { ProblemAlert } from '../../ui/problem-alert';
import { getOnlineScoring, onlineScoringKey, putOnlineScoring } from './online-scoring-api';
import { OnlineScoringForm } from './online-scoring-form';

export function OnlineScoringSection({ agentId, canWrite }: { agentId: string; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: onlineScoringKey(agentId), queryFn: () => getOnlineScoring(agentId) });
  const [saved, setSaved] = useState(false);
  const data = settings.data;
  return (
    <section aria-labelledby="online-scoring-heading">
      <h2 id="online-scoring-heading">Online scoring</h2>
      <p>
        A share of the agent's production runs graded by scorers once they end. Their scores show in the Runs and Usage
        tabs.
      </p>
      {settings.error && <ProblemAlert problem={problemOf(settings.error)} />}
      {!data && !settings.error && <p aria-busy="true">Loading…</p>}
      {data && (
        <>
          <p className="note">
            {data.queued_runs} sampled runs waiting to be scored; {data.dropped_runs} dropped because the queue was full
            {data.last_dropped_at ? ` (last at ${new Date(data.last_dropped_at).toLocaleString()})` : ''}.
          </p>
          <OnlineScoringForm
            key={data.updated_at ?? 'defaults'}
            settings={data}
            canWrite={canWrite}
            onSubmit={async (body) => {
              setSaved(false);
              await putOnlineScoring(agentId, body);
              setSaved(true);
              await queryClient.invalidateQueries({ queryKey: onlineScoringKey(agentId) });
            }}
          />
          {saved && <p role="status">Saved online scoring.</p>}
        </>
      )}
    </section>
  );
}
