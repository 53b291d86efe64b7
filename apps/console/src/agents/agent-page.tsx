// One agent: its name, config version and engine above tabs that are pages of their own (agent-tabs.ts):
// the playground first, then its settings, runs, schedules, usage, and how to reach it from outside.
import { useQuery } from '@tanstack/react-query';
import { Suspense } from 'react';
import { Outlet, useParams } from 'react-router';
import { problemOf } from '../api/api-problem';
import { ProblemAlert } from '../ui/problem-alert';
import { RouteTabs } from '../ui/route-tabs';
import { agentKeys, getAgent } from './agent-api';
import { AGENT_TABS } from './agent-tabs';
import { EngineHealth } from './engine-health';

export function AgentPage() {
  const { id = '' } = useParams();
  const query = useQuery({ queryKey: agentKeys.one(id, false), queryFn: () => getAgent(id, false) });
  if (query.error) return <ProblemAlert problem={problemOf(query.error)} />;
  if (!query.data) return <p aria-busy="true">Loading…</p>;
  const agent = query.data;
  return (
    <section>
      <div className="page-head">
        <h1>{agent.name}</h1>
        <p className="version">Config version {agent.engine_config_version}</p>
      </div>
      <EngineHealth engineUrl={agent.engine_url} publishedVersion={agent.engine_config_version} />
      <RouteTabs label={`Agent ${agent.name}`} base={`/agents/${agent.id}`} tabs={AGENT_TABS} idPrefix="agent-tab">
        <Suspense fallback={<p aria-busy="true">Loading…</p>}>
          <Outlet context={agent} />
        </Suspense>
      </RouteTabs>
    </section>
  );
}
