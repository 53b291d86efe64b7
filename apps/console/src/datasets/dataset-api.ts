// The dataset calls the pages share, with the query keys they are cached under: every write to a
// dataset's items makes a version, so it refreshes everything under the dataset's key.
import type { TDatasetImportMode, TDatasetItemInput } from '@agentplane/contracts';
import { JSONL_MEDIA_TYPE } from '@agentplane/contracts';
import { api, expectOk, expectPage, type Schemas } from '../api/api-client';
import { saveDownload } from '../api/save-download';

export type Dataset = Schemas['Dataset'];
export type DatasetItem = Schemas['DatasetItem'];
export type DatasetBody = Schemas['DatasetInput'];

export const DATASETS_KEY = 'datasets';

export const datasetKeys = {
  list: () => [DATASETS_KEY, 'list'] as const,
  one: (id: string) => [DATASETS_KEY, id] as const,
  versions: (id: string) => [DATASETS_KEY, id, 'versions'] as const,
  items: (id: string, version: number | undefined) => [DATASETS_KEY, id, 'items', version ?? 'current'] as const,
};

const byId = (id: string) => ({ params: { path: { id } } });
const page = (offset: number, limit: number) => ({ limit: String(limit), offset: String(offset) });

export function listDatasets(offset: number, limit: number) {
  return expectPage(api.GET('/api/v1/datasets', { params: { query: page(offset, limit) } }));
}

export function getDataset(id: string) {
  return expectOk(api.GET('/api/v1/datasets/{id}', byId(id)));
}

export function createDataset(body: DatasetBody) {
  return expectOk(api.POST('/api/v1/datasets', { body }));
}

export function deleteDataset(id: string) {
  return expectOk(api.DELETE('/api/v1/datasets/{id}', byId(id)));
}

export function listVersions(id: string) {
  return expectPage(api.GET('/api/v1/datasets/{id}/versions', { params: { path: { id }, query: page(0, 1000) } }));
}

export function listItems(id: string, version: number | undefined, offset: number, limit: number) {
  const query = { ...page(offset, limit), ...(version === undefined ? {} : { version: String(version) }) };
  return expectPage(api.GET('/api/v1/datasets/{id}/items', { params: { path: { id }, query } }));
}

/** The item's last user message: what a person recognises it by. */
export function lastUserText(item: Pick<DatasetItem, 'input'>): string {
  const message = item.input.findLast((each) => each.role === 'user');
  return message && 'content' in message ? String(message.content ?? '') : '';
}

export function addItems(id: string, items: TDatasetItemInput[]) {
  return expectOk(api.POST('/api/v1/datasets/{id}/items', { ...byId(id), body: { items } }));
}

export function replaceItem(id: string, itemId: string, item: TDatasetItemInput) {
  return expectOk(api.PATCH('/api/v1/datasets/{id}/items/{itemId}', { params: { path: { id, itemId } }, body: item }));
}

export function deleteItem(id: string, itemId: string) {
  return expectOk(api.DELETE('/api/v1/datasets/{id}/items/{itemId}', { params: { path: { id, itemId } } }));
}

export function importJsonl(id: string, text: string, mode: TDatasetImportMode) {
  return expectOk(
    api.POST('/api/v1/datasets/{id}/import', {
      params: { path: { id }, query: { mode } },
      body: text,
      bodySerializer: (body: string) => body,
      headers: { 'Content-Type': JSONL_MEDIA_TYPE },
    }),
  );
}

/** The version's JSONL, saved as a file. */
export async function downloadJsonl(id: string, version: number): Promise<void> {
  const text = await expectOk(
    api.GET('/api/v1/datasets/{id}/export', {
      params: { path: { id }, query: { version: String(version) } },
      parseAs: 'text',
    }),
  );
  saveDownload(text as string, `dataset-v${version}.jsonl`, JSONL_MEDIA_TYPE);
}
