// A workspace's datasets themselves: create (version 1, no items), list, read, rename and delete. Their
// items change in dataset-changes.ts, and are read in dataset-reads.ts.
import type { TDataset, TDatasetInput, TPaginationQuery } from '@agentplane/contracts';
import { type DatasetModel, type Db, inTransaction, type Tx } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import { refusePastWorkspaceCap } from '../workspaces/workspace-cap.js';
import type { DatasetLimits } from './dataset-settings.js';

export type DatasetContext = { db: Db; workspaceId: string; limits: DatasetLimits };

export const DATASET_NOT_FOUND = 'No dataset with this id in the workspace';

export function toDataset(row: DatasetModel): TDataset {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    version: row.version,
    item_count: row.itemCount,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The dataset, if it is the workspace's: an id of another workspace is as unknown as a made-up one. */
export async function findDataset(db: Db | Tx, workspaceId: string, id: string): Promise<DatasetModel> {
  const row = await db.dataset.findFirst({ where: { id, workspaceId } });
  if (row === null) throw new AppError('not_found', DATASET_NOT_FOUND);
  return row;
}

export async function listDatasets(
  ctx: DatasetContext,
  page: TPaginationQuery,
): Promise<{ items: TDataset[]; total: number }> {
  const where = { workspaceId: ctx.workspaceId };
  const [rows, total] = await Promise.all([
    ctx.db.dataset.findMany({
      where,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: page.limit,
      skip: page.offset,
    }),
    ctx.db.dataset.count({ where }),
  ]);
  return { items: rows.map(toDataset), total };
}

export async function getDataset(ctx: DatasetContext, id: string): Promise<TDataset> {
  return toDataset(await findDataset(ctx.db, ctx.workspaceId, id));
}

export async function createDataset(ctx: DatasetContext, input: TDatasetInput): Promise<TDataset> {
  const row = await inTransaction(ctx.db, async (tx) => {
    await refusePastWorkspaceCap(tx, ctx.workspaceId, {
      max: ctx.limits.maxPerWorkspace,
      count: (locked) => locked.dataset.count({ where: { workspaceId: ctx.workspaceId } }),
      noun: 'datasets',
      setting: 'MAX_DATASETS_PER_WORKSPACE',
      type: 'datasets-per-workspace',
    });
    return tx.dataset.create({
      data: {
        workspaceId: ctx.workspaceId,
        name: input.name,
        description: input.description,
        versions: { create: { version: 1, change: 'created', itemCount: 0 } },
      },
    });
  });
  return toDataset(row);
}

/** Renames or redescribes a dataset; its items, and so its version, stay as they are. */
export async function renameDataset(ctx: DatasetContext, id: string, input: TDatasetInput): Promise<TDataset> {
  const { count } = await ctx.db.dataset.updateMany({
    where: { id, workspaceId: ctx.workspaceId },
    data: { name: input.name, description: input.description },
  });
  if (count === 0) throw new AppError('not_found', DATASET_NOT_FOUND);
  return getDataset(ctx, id);
}

export async function deleteDataset(ctx: DatasetContext, id: string): Promise<void> {
  const { count } = await ctx.db.dataset.deleteMany({ where: { id, workspaceId: ctx.workspaceId } });
  if (count === 0) throw new AppError('not_found', DATASET_NOT_FOUND);
}
