// Resource reads in SQL. Prisma's `_count` joins a GROUP BY over the whole link table, which grows with
// every agent of every workspace; the correlated count here reads only this resource's links, through
// their index. Table and column names come from the fixed kinds, never from input.
import { type Db, querySql, type Tx } from '@agentplane/db';
import { perTurnLoader } from '@agentplane/server-kit';
import type DataLoader from 'dataloader';
import type { ResourceKind, ResourceRow } from './resource-kinds.js';

function selectResources<T>(kind: ResourceKind<T>): string {
  const { table, typedColumns, agentLinks } = kind.storage;
  return `SELECT r.id::text AS id, r.workspace_id::text AS "workspaceId", r.name, ${typedColumns},
    r.created_at AS "createdAt", r.updated_at AS "updatedAt",
    (SELECT count(*) FROM ${agentLinks.table} l WHERE l.${agentLinks.column} = r.id)::int AS "agentCount"
  FROM ${table} r`;
}

/** Reads one resource where a transaction must see it (or its absence) as it stands within. */
export async function readResource<T>(
  db: Db | Tx,
  kind: ResourceKind<T>,
  workspaceId: string,
  id: string,
): Promise<ResourceRow | undefined> {
  const [row] = await querySql<ResourceRow>(
    db,
    `${selectResources(kind)} WHERE r.id = $1::uuid AND r.workspace_id = $2::uuid`,
    [id, workspaceId],
  );
  return row;
}

/**
 * Locks one resource row for a write and reads its stored typed columns, so that a masked secret the
 * write keeps is the one stored when it commits, not one a concurrent write has just replaced.
 */
export async function lockResource<T>(
  tx: Tx,
  kind: ResourceKind<T>,
  workspaceId: string,
  id: string,
): Promise<Record<string, unknown> | undefined> {
  const [row] = await querySql<Record<string, unknown>>(
    tx,
    `SELECT ${kind.storage.typedColumns} FROM ${kind.storage.table} r
    WHERE r.id = $1::uuid AND r.workspace_id = $2::uuid FOR UPDATE`,
    [id, workspaceId],
  );
  return row;
}

/** One page of a workspace's resources, oldest first. */
export function readResourcePage<T>(
  db: Db,
  kind: ResourceKind<T>,
  workspaceId: string,
  page: { limit: number; offset: number },
): Promise<ResourceRow[]> {
  return db.sql<ResourceRow>(
    `${selectResources(kind)} WHERE r.workspace_id = $1::uuid ORDER BY r.created_at, r.id LIMIT $2 OFFSET $3`,
    [workspaceId, page.limit, page.offset],
  );
}

type Wanted = { workspaceId: string; id: string };
const wantedKey = ({ workspaceId, id }: Wanted) => `${workspaceId}/${id}`;
const loadersByDb = new WeakMap<Db, Map<ResourceKind<unknown>, DataLoader<Wanted, ResourceRow | undefined>>>();

function loaderFor<T>(db: Db, kind: ResourceKind<T>): DataLoader<Wanted, ResourceRow | undefined> {
  let loaders = loadersByDb.get(db);
  if (!loaders) {
    loaders = new Map();
    loadersByDb.set(db, loaders);
  }
  const known = loaders.get(kind as ResourceKind<unknown>);
  if (known) return known;
  // A row answers only the request that names both its id and its workspace.
  const text = `${selectResources(kind)}
    JOIN unnest($1::uuid[], $2::uuid[]) AS wanted(id, workspace_id)
      ON r.id = wanted.id AND r.workspace_id = wanted.workspace_id`;
  const loader = perTurnLoader<Wanted, ResourceRow | undefined>(async (wanted) => {
    const rows = await db.sql<ResourceRow & { workspaceId: string }>(text, [
      wanted.map((item) => item.id),
      wanted.map((item) => item.workspaceId),
    ]);
    const byKey = new Map(rows.map((row) => [wantedKey(row), row]));
    return wanted.map((item) => byKey.get(wantedKey(item)));
  });
  loaders.set(kind as ResourceKind<unknown>, loader);
  return loader;
}

/** Reads one resource outside any transaction; reads that arrive together share a query (perTurnLoader). */
export function loadResource<T>(db: Db, kind: ResourceKind<T>, workspaceId: string, id: string) {
  return loaderFor(db, kind).load({ workspaceId, id });
}
