// Resource reads in SQL. Prisma's `_count` joins a GROUP BY over the whole link table, which grows with
// every agent of every workspace; the correlated count here reads only this resource's links, through
// their index. Table and column names come from the fixed kinds, never from input.
import { type Db, querySql, type Tx } from '@agentplane/db';
import type { ResourceKind, ResourceRow } from './resource-kinds.js';

function selectResources<T>(kind: ResourceKind<T>): string {
  const { table, typedColumns, agentLinks } = kind.storage;
  return `SELECT r.id::text AS id, r.name, ${typedColumns}, r.created_at AS "createdAt", r.updated_at AS "updatedAt",
    (SELECT count(*) FROM ${agentLinks.table} l WHERE l.${agentLinks.column} = r.id)::int AS "agentCount"
  FROM ${table} r`;
}

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
