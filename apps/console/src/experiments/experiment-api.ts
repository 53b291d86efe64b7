// An agent's experiments over the API, with the query keys they are cached under (below the agent's,
// so that deleting the agent drops them).

import { AGENTS_KEY } from '../agents/agent-api';
import { api, expectOk, expectPage, type Schemas } from '../api/api-client';
import { saveDownload } from '../api/save-download';

export type Experiment = Schemas['Experiment'];
export type ExperimentDetail = Schemas['ExperimentDetail'];
export type ExperimentBody = Schemas['ExperimentCreate'];
export type VersionAggregate = Schemas['VersionAggregate'];
export type Comparison = Schemas['ExperimentComparison'];
export type ComparisonItem = Schemas['ComparisonItem'];
export type ExportFormat = 'jsonl' | 'csv';

/** The API's largest page: the comparison reads this many items at once. */
export const LARGEST_PAGE = 1000;

// A comparison is keyed by how many of the experiment's runs were final then (`done`): the experiment's own
// polling moves the key on as runs end, so it is read again exactly when it changes.
export const experimentKeys = {
  list: (agentId: string) => [AGENTS_KEY, agentId, 'experiments'] as const,
  one: (agentId: string, experimentId: string) => [AGENTS_KEY, agentId, 'experiments', experimentId] as const,
  comparison: (agentId: string, experimentId: string, done: number, query: ComparisonQuery) =>
    [AGENTS_KEY, agentId, 'experiments', experimentId, 'comparison', done, query] as const,
};

const pathOf = (agentId: string, experimentId: string) => ({ path: { id: agentId, experimentId } });
const page = (offset: number, limit: number) => ({ limit: String(limit), offset: String(offset) });

export function listExperiments(agentId: string, offset: number, limit: number) {
  return expectPage(
    api.GET('/api/v1/agents/{id}/experiments', { params: { path: { id: agentId }, query: page(offset, limit) } }),
  );
}

export function createExperiment(agentId: string, body: ExperimentBody) {
  return expectOk(api.POST('/api/v1/agents/{id}/experiments', { params: { path: { id: agentId } }, body }));
}

export function getExperiment(agentId: string, experimentId: string) {
  return expectOk(api.GET('/api/v1/agents/{id}/experiments/{experimentId}', { params: pathOf(agentId, experimentId) }));
}

export function cancelExperiment(agentId: string, experimentId: string) {
  return expectOk(
    api.POST('/api/v1/agents/{id}/experiments/{experimentId}/cancel', { params: pathOf(agentId, experimentId) }),
  );
}

export function deleteExperiment(agentId: string, experimentId: string) {
  return expectOk(
    api.DELETE('/api/v1/agents/{id}/experiments/{experimentId}', { params: pathOf(agentId, experimentId) }),
  );
}

/** Which two versions, which of their items (a verdict or `all`; only changed replies or not), and from where. */
export type ComparisonQuery = {
  base: number;
  candidate: number;
  verdict: ComparisonItem['verdict'] | 'all';
  changedOnly: boolean;
  offset: number;
};

export function compareVersions(agentId: string, experimentId: string, query: ComparisonQuery) {
  return expectOk(
    api.GET('/api/v1/agents/{id}/experiments/{experimentId}/comparison', {
      params: {
        ...pathOf(agentId, experimentId),
        query: {
          ...page(query.offset, LARGEST_PAGE),
          base: String(query.base),
          candidate: String(query.candidate),
          ...(query.verdict === 'all' ? {} : { verdict: query.verdict }),
          ...(query.changedOnly ? { reply_changed: 'true' as const } : {}),
        },
      },
    }),
  );
}

const MEDIA_TYPES: Record<ExportFormat, string> = { jsonl: 'application/x-ndjson', csv: 'text/csv' };

export async function downloadExport(agentId: string, experiment: Experiment, format: ExportFormat): Promise<void> {
  const text = await expectOk(
    api.GET('/api/v1/agents/{id}/experiments/{experimentId}/export', {
      params: { ...pathOf(agentId, experiment.id), query: { format } },
      parseAs: 'text',
    }),
  );
  saveDownload(text as string, `experiment-${experiment.id}.${format}`, MEDIA_TYPES[format]);
}
