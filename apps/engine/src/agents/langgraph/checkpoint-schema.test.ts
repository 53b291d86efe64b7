// The manager creates each agent's checkpoint tables itself (packages/db, checkpoint-tables.ts), as the
// engine's role may create nothing. They must be what LangGraph's own setup() makes, and setup() must
// find nothing left to do in them; an upgrade of @langchain/langgraph-checkpoint-postgres that adds a
// migration fails here.
import { randomUUID } from 'node:crypto';
import { checkpointSchemaName } from '@agentplane/db/engine-roles';
import { createTestDatabase, issueTestEngineCredentials, type TestDatabase } from '@agentplane/db/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

async function columnsOf(schema: string) {
  return database.prisma.$queryRawUnsafe<unknown[]>(
    `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable, c.column_default,
            (SELECT string_agg(k.column_name, ',' ORDER BY k.ordinal_position)
             FROM information_schema.key_column_usage k
             WHERE k.table_schema = c.table_schema AND k.table_name = c.table_name) AS primary_key
     FROM information_schema.columns c WHERE c.table_schema = $1
     ORDER BY c.table_name, c.column_name`,
    schema,
  );
}

describe('the provisioned checkpoint schema', () => {
  it("has the tables and migration versions of the saver's own setup()", async () => {
    const agentId = randomUUID();
    await issueTestEngineCredentials(database, agentId);
    const reference = `langgraph_reference_${randomUUID().replaceAll('-', '')}`;
    const pool = database.createPool({ max: 2 });
    await new PostgresSaver(pool, undefined, { schema: reference }).setup();
    expect(await columnsOf(checkpointSchemaName(agentId))).toEqual(await columnsOf(reference));

    const versions = (schema: string) =>
      database.prisma.$queryRawUnsafe<{ v: number }[]>(`SELECT v FROM "${schema}".checkpoint_migrations ORDER BY v`);
    expect(await versions(checkpointSchemaName(agentId))).toEqual(await versions(reference));
  });
});
