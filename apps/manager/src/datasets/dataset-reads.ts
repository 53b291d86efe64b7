// Reading a dataset at a version: its items (a page, or all of them in order for an export) and its
// list of versions. What a version holds never changes, so a read needs no transaction to be consistent.
import type {
  TDatasetChange,
  TDatasetItem,
  TDatasetItemInput,
  TDatasetMessage,
  TDatasetVersion,
  TPaginationQuery,
} from '@agentplane/contracts';
import type { DatasetItemModel, DatasetVersionModel, Prisma } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import { type DatasetContext, findDataset } from './dataset-service.js';

/** Rows read at a time by an export. */
const EXPORT_PAGE = 500;

export function toDatasetVersion(row: DatasetVersionModel): TDatasetVersion {
  return {
    version: row.version,
    change: row.change as TDatasetChange,
    item_count: row.itemCount,
    created_at: row.createdAt.toISOString(),
  };
}

function contentOf(row: DatasetItemModel): TDatasetItemInput {
  return {
    input: row.input as TDatasetMessage[],
    expected: row.expected as TDatasetItemInput['expected'],
    metadata: row.metadata as TDatasetItemInput['metadata'],
  };
}

export function toDatasetItem(row: DatasetItemModel): TDatasetItem {
  return { id: row.itemId, version: row.validFrom, ...contentOf(row) };
}

/** An item as one JSONL line of an export: what an import takes back, its empty fields left out. */
export function toJsonlItem(row: DatasetItemModel): Partial<TDatasetItemInput> {
  const { input, expected, metadata } = contentOf(row);
  return { input, ...(expected === null ? {} : { expected }), ...(metadata === null ? {} : { metadata }) };
}

/** The revisions that make up version `version`. */
function inVersion(datasetId: string, version: number): Prisma.DatasetItemWhereInput {
  return { datasetId, validFrom: { lte: version }, OR: [{ validTo: null }, { validTo: { gt: version } }] };
}

/** The workspace's dataset at `version` (the current one when undefined); 404 for a version it never had. */
export async function findDatasetVersion(
  ctx: DatasetContext,
  datasetId: string,
  version: number | undefined,
): Promise<DatasetVersionModel> {
  const dataset = await findDataset(ctx.db, ctx.workspaceId, datasetId);
  const row = await ctx.db.datasetVersion.findUnique({
    where: { datasetId_version: { datasetId, version: version ?? dataset.version } },
  });
  if (row === null)
    throw new AppError('not_found', `The dataset has no version ${version}; its current one is ${dataset.version}.`);
  return row;
}

export async function listDatasetItems(
  ctx: DatasetContext,
  datasetId: string,
  query: TPaginationQuery & { version?: number | undefined },
): Promise<{ items: TDatasetItem[]; total: number; version: number }> {
  const version = await findDatasetVersion(ctx, datasetId, query.version);
  const rows = await ctx.db.datasetItem.findMany({
    where: inVersion(datasetId, version.version),
    orderBy: { seq: 'asc' },
    take: query.limit,
    skip: query.offset,
  });
  return { items: rows.map(toDatasetItem), total: version.itemCount, version: version.version };
}

/** Every item of a version in order, a page of rows at a time (by place, not offset: each page costs the same). */
export async function* readVersionItems(
  ctx: DatasetContext,
  version: DatasetVersionModel,
): AsyncGenerator<DatasetItemModel> {
  let after: bigint | undefined;
  for (;;) {
    const rows = await ctx.db.datasetItem.findMany({
      where: {
        ...inVersion(version.datasetId, version.version),
        ...(after === undefined ? {} : { seq: { gt: after } }),
      },
      orderBy: { seq: 'asc' },
      take: EXPORT_PAGE,
    });
    yield* rows;
    if (rows.length < EXPORT_PAGE) return;
    after = rows[rows.length - 1]?.seq;
  }
}

export async function listDatasetVersions(
  ctx: DatasetContext,
  datasetId: string,
  page: TPaginationQuery,
): Promise<{ items: TDatasetVersion[]; total: number }> {
  const dataset = await findDataset(ctx.db, ctx.workspaceId, datasetId);
  const rows = await ctx.db.datasetVersion.findMany({
    where: { datasetId },
    orderBy: { version: 'desc' },
    take: page.limit,
    skip: page.offset,
  });
  return { items: rows.map(toDatasetVersion), total: dataset.version };
}
