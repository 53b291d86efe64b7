// An agent's experiments over the API, with the query keys they are cached under (below the agent's,
// so that deleting the agent drops them).

import { AGENTS_KEY } from '../agents/agent-api';
import { api, expectOk, expectPage, type Schemas } from '../api/api-client';
import { saveDownload } from '../api/save-download';

export type Experiment = Schemas['Experiment'];
export type ExperimentDetail = Schemas['ExperimentDetail'];
export type ExperimentBody = Schemas['ExperimentCreate'];
export type ExperimentResult = Schemas['ExperimentResult'];
export type VersionAggregate = Schemas['VersionAggregate'];
export type Comparison = Schemas['ExperimentComparison'];
export type ComparisonItem = Schemas['ComparisonItem'];
export type ExportFormat = 'jsonl' | 'csv';

/** The API's largest page: the comparison and the charts read this many at once. */
export const LARGEST_PAGE = 1000;

// What is read of an experiment's results is keyed by how many of its runs were final then (`done`): the
// experiment's own polling moves the key on as runs end, so results are read again exactly when they change.
export const experimentKeys = {
  list: (agentId: string) => [AGENTS_KEY, agentId, 'experiments'] as const,
  one: (agentId: string, experimentId: string) => [AGENTS_KEY, agentId, 'experiments', experimentId] as const,
  scores: (agentId: string, experimentId: string, done: number) =>
    [AGENTS_KEY, agentId, 'experiments', experimentId, 'scores', done] as const,
  comparison: (agentId: string, experimentId: string, done: number, query: Record<string, number>) =>
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

/** Pages of scored results, read until `max` (the charts' bound), with the total there is. */
export async function listScoredResults(agentId: string, experimentId: string, max: number) {
  const results: ExperimentResult[] = [];
  let total = 0;
  do {
    const answer = await expectPage(
      api.GET('/api/v1/agents/{id}/experiments/{experimentId}/results', {
        params: { ...pathOf(agentId, experimentId), query: { ...page(results.length, LARGEST_PAGE), state: 'scored' } },
      }),
    );
    total = answer.total;
    results.push(...answer.items);
    if (answer.items.length === 0) break;
  } while (results.length < Math.min(total, max));
  return { results, total };
}

export function compareVersions(
  agentId: string,
  experimentId: string,
  base: number,
  candidate: number,
  offset: number,
) {
  return expectOk(
    api.GET('/api/v1/agents/{id}/experiments/{experimentId}/comparison', {
      params: {
        ...pathOf(agentId, experimentId),
        query: { ...page(offset, LARGEST_PAGE), base: String(base), candidate: String(candidate) },
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
