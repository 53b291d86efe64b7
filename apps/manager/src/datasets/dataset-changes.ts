// Every change to a dataset's items, as one transaction that makes the next version. Revisions are
// never updated but to end them (valid_to), so each version keeps reading what it held; the dataset's
// row lock orders changes one after another, so two imports at once make two versions, each with
// what the other left, and no change is lost.
import { randomUUID } from 'node:crypto';
import type { TDatasetChange, TDatasetItemInput, TDatasetVersion } from '@agentplane/contracts';
import { type DatasetItemModel, inTransaction, Prisma, type Tx } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import { toDatasetVersion } from './dataset-reads.js';
import { DATASET_NOT_FOUND, type DatasetContext } from './dataset-service.js';
import type { DatasetLimits } from './dataset-settings.js';

export const ITEM_NOT_FOUND = 'No item with this id in the current version of the dataset';

/** Rows per INSERT: well inside PostgreSQL's 65535 bind parameters whatever the columns. */
const INSERT_CHUNK = 1000;

export type DatasetChange = {
  kind: TDatasetChange;
  /** The items whose current revision ends with this version: all of them, or these ids. */
  end: 'all' | string[];
  /** New revisions: a new item, or new content for an item `end` names (its id and place kept). */
  add: { item: TDatasetItemInput; replaces?: string }[];
  /** Whether the caller needs the new revisions back (an add answers them; an import only counts). */
  returnRows?: boolean;
};

export type CommittedChange = { version: TDatasetVersion; rows: DatasetItemModel[] };

type LockedDataset = { version: number; item_count: number; stored_rows: number };

async function lockDataset(tx: Tx, workspaceId: string, id: string): Promise<LockedDataset> {
  const [row] = await tx.$queryRaw<LockedDataset[]>`
    SELECT version, item_count, stored_rows FROM datasets
    WHERE id = ${id}::uuid AND workspace_id = ${workspaceId}::uuid FOR UPDATE`;
  if (row === undefined) throw new AppError('not_found', DATASET_NOT_FOUND);
  return row;
}

/** The place of each item the change ends, found before anything is written: one unknown id is a 404. */
async function placesOfEnded(tx: Tx, datasetId: string, itemIds: string[]): Promise<Map<string, bigint>> {
  const rows = await tx.datasetItem.findMany({
    where: { datasetId, itemId: { in: itemIds }, validTo: null },
    select: { itemId: true, seq: true },
  });
  if (rows.length !== new Set(itemIds).size) throw new AppError('not_found', ITEM_NOT_FOUND);
  return new Map(rows.map((row) => [row.itemId, row.seq]));
}

function refusePastLimits(limits: DatasetLimits, itemCount: number, storedRows: number): void {
  if (itemCount > limits.maxItems) {
    throw new AppError(
      'conflict',
      `The dataset would hold ${itemCount} items, more than the operator allows (MAX_DATASET_ITEMS=${limits.maxItems}).`,
      { type: 'dataset-items' },
    );
  }
  if (storedRows > limits.maxHistoryRows) {
    throw new AppError(
      'conflict',
      `The dataset would keep ${storedRows} item revisions over its versions, more than the operator allows (DATASET_HISTORY_MAX_ROWS=${limits.maxHistoryRows}); export it and import it into a new dataset to start a fresh history.`,
      { type: 'dataset-history' },
    );
  }
}

function jsonColumn(value: Record<string, unknown> | null) {
  return value === null ? Prisma.DbNull : (value as Prisma.InputJsonObject);
}

async function insertRevisions(
  tx: Tx,
  rows: Prisma.DatasetItemCreateManyInput[],
  returnRows: boolean,
): Promise<DatasetItemModel[]> {
  const inserted: DatasetItemModel[] = [];
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
    const chunk = rows.slice(start, start + INSERT_CHUNK);
    if (returnRows) inserted.push(...(await tx.datasetItem.createManyAndReturn({ data: chunk })));
    else await tx.datasetItem.createMany({ data: chunk });
  }
  return inserted.sort((a, b) => (a.seq < b.seq ? -1 : 1));
}

export async function commitChange(
  ctx: DatasetContext,
  datasetId: string,
  change: DatasetChange,
): Promise<CommittedChange> {
  return inTransaction(ctx.db, async (tx) => {
    const dataset = await lockDataset(tx, ctx.workspaceId, datasetId);
    // Adds end no item: neither look-up nor update has anything to do.
    const places =
      change.end === 'all' || change.end.length === 0
        ? new Map<string, bigint>()
        : await placesOfEnded(tx, datasetId, change.end);
    const ended = change.end === 'all' ? dataset.item_count : places.size;
    const itemCount = dataset.item_count - ended + change.add.length;
    const storedRows = dataset.stored_rows + change.add.length;
    refusePastLimits(ctx.limits, itemCount, storedRows);

    const version = dataset.version + 1;
    if (change.end === 'all' || places.size > 0) {
      await tx.datasetItem.updateMany({
        where: { datasetId, validTo: null, ...(change.end === 'all' ? {} : { itemId: { in: [...places.keys()] } }) },
        data: { validTo: version },
      });
    }
    const rows = await insertRevisions(
      tx,
      change.add.map(({ item, replaces }) => ({
        datasetId,
        itemId: replaces ?? randomUUID(),
        ...(replaces === undefined ? {} : { seq: places.get(replaces) }),
        input: item.input as Prisma.InputJsonArray,
        expected: jsonColumn(item.expected),
        metadata: jsonColumn(item.metadata),
        validFrom: version,
      })),
      change.returnRows ?? false,
    );
    await tx.dataset.update({ where: { id: datasetId }, data: { version, itemCount, storedRows } });
    const versionRow = await tx.datasetVersion.create({
      data: { datasetId, version, change: change.kind, itemCount },
    });
    return { version: toDatasetVersion(versionRow), rows };
  });
}
