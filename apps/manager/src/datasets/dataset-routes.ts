// /datasets: a workspace's datasets, their items at any version, their versions, and JSONL import and
// export. Viewers read; members, admins and owners write.
import {
  JSONL_MEDIA_TYPE,
  ZDataset,
  ZDatasetExportQuery,
  ZDatasetImportQuery,
  ZDatasetInput,
  ZDatasetItem,
  ZDatasetItemChanged,
  ZDatasetItemInput,
  ZDatasetItemParams,
  ZDatasetItemsAdd,
  ZDatasetItemsAdded,
  ZDatasetItemsQuery,
  ZDatasetJsonl,
  ZDatasetVersion,
  ZPaginationQuery,
} from '@agentplane/contracts';
import type { Db } from '@agentplane/db';
import type { Request } from 'express';
import { z } from 'zod';
import type { ApiRouter } from '../http/api-router.js';
import { sendPage, ZTotalCountHeader } from '../http/pagination.js';
import { currentWorkspace } from '../http/request-context.js';
import { ZIdParams } from '../resources/resource-routes.js';
import { commitChange, ITEM_NOT_FOUND } from './dataset-changes.js';
import { parseJsonlItems, readJsonlBody, sendJsonl } from './dataset-jsonl.js';
import {
  findDatasetVersion,
  listDatasetItems,
  listDatasetVersions,
  readVersionItems,
  toDatasetItem,
  toJsonlItem,
} from './dataset-reads.js';
import {
  createDataset,
  DATASET_NOT_FOUND,
  type DatasetContext,
  deleteDataset,
  getDataset,
  listDatasets,
  renameDataset,
} from './dataset-service.js';
import type { DatasetLimits } from './dataset-settings.js';

export type DatasetRouteDependencies = { db: Db; limits: DatasetLimits };

const tag = 'datasets';
const read = { kind: 'workspace', minRole: 'viewer' } as const;
const write = { kind: 'workspace', minRole: 'member' } as const;
const VIEWER = { 403: 'Viewers may only read' };
const NOT_FOUND = { 404: DATASET_NOT_FOUND };
const NO_VERSION = { 404: `${DATASET_NOT_FOUND}, or no such version of it` };
const ITEM_404 = { 404: `${DATASET_NOT_FOUND}, or ${ITEM_NOT_FOUND.toLowerCase()}` };
const LIMITS = {
  409: 'Past MAX_DATASET_ITEMS items in the dataset, or past DATASET_HISTORY_MAX_ROWS revisions kept over its versions',
};
const ZVersionHeader = ZTotalCountHeader.extend({
  'X-Dataset-Version': z.string().meta({ description: 'The version these items are of' }),
});

export function addDatasetRoutes(api: ApiRouter, deps: DatasetRouteDependencies): void {
  const contextOf = (req: Request): DatasetContext => ({
    db: deps.db,
    workspaceId: currentWorkspace(req).id,
    limits: deps.limits,
  });

  api.add(
    {
      method: 'get',
      path: '/datasets',
      operationId: 'listDatasets',
      summary: "List the workspace's datasets",
      tag,
      access: read,
      query: ZPaginationQuery,
      responses: { 200: { description: 'A page', schema: z.array(ZDataset), headers: ZTotalCountHeader } },
    },
    async ({ query }, req, res) => {
      sendPage(res, await listDatasets(contextOf(req), query));
    },
  );
  api.add(
    {
      method: 'post',
      path: '/datasets',
      operationId: 'createDataset',
      summary: 'Create an empty dataset (its version 1)',
      tag,
      access: write,
      body: ZDatasetInput,
      responses: { 201: { description: 'Created', schema: ZDataset } },
      problems: { ...VIEWER, 409: 'The workspace has as many datasets as the operator allows' },
    },
    async ({ body }, req, res) => {
      res.status(201).json(await createDataset(contextOf(req), body));
    },
  );
  api.add(
    {
      method: 'get',
      path: '/datasets/:id',
      operationId: 'getDataset',
      summary: 'Read a dataset: its name, current version and item count',
      tag,
      access: read,
      params: ZIdParams,
      responses: { 200: { description: 'The dataset', schema: ZDataset } },
      problems: NOT_FOUND,
    },
    async ({ params }, req, res) => {
      res.json(await getDataset(contextOf(req), params.id));
    },
  );
  api.add(
    {
      method: 'patch',
      path: '/datasets/:id',
      operationId: 'renameDataset',
      summary: 'Replace a dataset’s name and description; its items and version stay',
      tag,
      access: write,
      params: ZIdParams,
      body: ZDatasetInput,
      responses: { 200: { description: 'The dataset', schema: ZDataset } },
      problems: { ...VIEWER, ...NOT_FOUND },
    },
    async ({ params, body }, req, res) => {
      res.json(await renameDataset(contextOf(req), params.id, body));
    },
  );
  api.add(
    {
      method: 'delete',
      path: '/datasets/:id',
      operationId: 'deleteDataset',
      summary: 'Delete a dataset with every version of its items',
      tag,
      access: write,
      params: ZIdParams,
      responses: { 204: { description: 'Deleted' } },
      problems: { ...VIEWER, ...NOT_FOUND },
    },
    async ({ params }, req, res) => {
      await deleteDataset(contextOf(req), params.id);
      res.status(204).end();
    },
  );
  api.add(
    {
      method: 'get',
      path: '/datasets/:id/versions',
      operationId: 'listDatasetVersions',
      summary: "List a dataset's versions, newest first",
      tag,
      access: read,
      params: ZIdParams,
      query: ZPaginationQuery,
      responses: { 200: { description: 'A page', schema: z.array(ZDatasetVersion), headers: ZTotalCountHeader } },
      problems: NOT_FOUND,
    },
    async ({ params, query }, req, res) => {
      sendPage(res, await listDatasetVersions(contextOf(req), params.id, query));
    },
  );
  api.add(
    {
      method: 'get',
      path: '/datasets/:id/items',
      operationId: 'listDatasetItems',
      summary: "List a dataset's items at a version (the current one by default), in the order they were added",
      tag,
      access: read,
      params: ZIdParams,
      query: ZDatasetItemsQuery,
      responses: { 200: { description: 'A page', schema: z.array(ZDatasetItem), headers: ZVersionHeader } },
      problems: NO_VERSION,
    },
    async ({ params, query }, req, res) => {
      const page = await listDatasetItems(contextOf(req), params.id, query);
      res.set('X-Dataset-Version', String(page.version));
      sendPage(res, page);
    },
  );
  api.add(
    {
      method: 'post',
      path: '/datasets/:id/items',
      operationId: 'addDatasetItems',
      summary: 'Add one or more items, making a new version',
      tag,
      access: write,
      params: ZIdParams,
      body: ZDatasetItemsAdd,
      responses: { 201: { description: 'The new version and the items', schema: ZDatasetItemsAdded } },
      problems: { ...VIEWER, ...NOT_FOUND, ...LIMITS },
    },
    async ({ params, body }, req, res) => {
      const committed = await commitChange(contextOf(req), params.id, {
        kind: 'items_added',
        end: [],
        add: body.items.map((item) => ({ item })),
        returnRows: true,
      });
      res.status(201).json({ version: committed.version, items: committed.rows.map(toDatasetItem) });
    },
  );
  api.add(
    {
      method: 'patch',
      path: '/datasets/:id/items/:itemId',
      operationId: 'replaceDatasetItem',
      summary: 'Replace an item’s content, making a new version; earlier versions keep the old content',
      tag,
      access: write,
      params: ZDatasetItemParams,
      body: ZDatasetItemInput,
      responses: { 200: { description: 'The new version and the item', schema: ZDatasetItemChanged } },
      problems: { ...VIEWER, ...ITEM_404, ...LIMITS },
    },
    async ({ params, body }, req, res) => {
      const committed = await commitChange(contextOf(req), params.id, {
        kind: 'item_replaced',
        end: [params.itemId],
        add: [{ item: body, replaces: params.itemId }],
        returnRows: true,
      });
      const [row] = committed.rows;
      res.json({ version: committed.version, item: row && toDatasetItem(row) });
    },
  );
  api.add(
    {
      method: 'delete',
      path: '/datasets/:id/items/:itemId',
      operationId: 'deleteDatasetItem',
      summary: 'Remove an item, making a new version; earlier versions keep it',
      tag,
      access: write,
      params: ZDatasetItemParams,
      responses: { 200: { description: 'The new version', schema: ZDatasetVersion } },
      problems: { ...VIEWER, ...ITEM_404 },
    },
    async ({ params }, req, res) => {
      const committed = await commitChange(contextOf(req), params.id, {
        kind: 'item_deleted',
        end: [params.itemId],
        add: [],
      });
      res.json(committed.version);
    },
  );
  api.add(
    {
      method: 'post',
      path: '/datasets/:id/import',
      operationId: 'importDatasetItems',
      summary: 'Import JSONL items, appended or replacing every item, as one new version: all lines or none',
      tag,
      access: write,
      params: ZIdParams,
      query: ZDatasetImportQuery,
      handlerBody: { contentType: JSONL_MEDIA_TYPE, schema: ZDatasetJsonl },
      responses: { 201: { description: 'The new version', schema: ZDatasetVersion } },
      problems: {
        ...VIEWER,
        ...NOT_FOUND,
        ...LIMITS,
        413: 'The body is larger than DATASET_IMPORT_MAX_BYTES',
        415: `A body that is not ${JSONL_MEDIA_TYPE}`,
        422: 'A line that is not a dataset item (each named as `line N`), or no items at all',
      },
    },
    async ({ params, query }, req, res) => {
      const ctx = contextOf(req);
      const items = parseJsonlItems(await readJsonlBody(req, res, ctx.limits.importMaxBytes));
      const committed = await commitChange(ctx, params.id, {
        kind: query.mode === 'replace' ? 'replaced_all' : 'imported',
        end: query.mode === 'replace' ? 'all' : [],
        add: items.map((item) => ({ item })),
      });
      res.status(201).json(committed.version);
    },
  );
  api.add(
    {
      method: 'get',
      path: '/datasets/:id/export',
      operationId: 'exportDatasetItems',
      summary: 'Export a version’s items (the current one by default) as JSONL, one importable item per line',
      tag,
      access: read,
      params: ZIdParams,
      query: ZDatasetExportQuery,
      responses: {
        200: {
          description: 'JSON Lines',
          contentType: JSONL_MEDIA_TYPE,
          schema: ZDatasetJsonl,
          headers: z.object({ 'X-Dataset-Version': z.string() }),
        },
      },
      problems: NO_VERSION,
    },
    async ({ params, query }, req, res) => {
      const ctx = contextOf(req);
      const version = await findDatasetVersion(ctx, params.id, query.version);
      res.set('X-Dataset-Version', String(version.version));
      const lines = (async function* () {
        for await (const row of readVersionItems(ctx, version)) yield toJsonlItem(row);
      })();
      await sendJsonl(res, `dataset-${params.id}-v${version.version}.jsonl`, lines);
    },
  );
}
