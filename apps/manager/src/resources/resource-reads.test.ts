// Batched resource reads: requests that arrive together share a query, and each gets only the row that
// its own workspace holds.
import {
  createTestDatabase,
  makeIntegration,
  makeMcpServer,
  makeWorkspace,
  type TestDatabase,
} from '@agentplane/db/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { countingSql } from '../testing/counting-sql.js';
import { INTEGRATIONS, MCP_SERVERS } from './resource-kinds.js';
import { loadResource } from './resource-reads.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

describe('loadResource', () => {
  it('answers concurrent reads with one query per kind, each with the row of its own workspace only', async () => {
    const [mine, theirs] = [await makeWorkspace(database.prisma), await makeWorkspace(database.prisma)];
    const integration = await makeIntegration(database.prisma, mine.id);
    const other = await makeIntegration(database.prisma, theirs.id);
    const server = await makeMcpServer(database.prisma, mine.id);
    const { db, counter } = countingSql(database.prisma);

    const [own, probed, foreign, missing, again, mcp] = await Promise.all([
      loadResource(db, INTEGRATIONS, mine.id, integration.id),
      // Another workspace naming my integration's id, in the same batch, must get nothing.
      loadResource(db, INTEGRATIONS, theirs.id, integration.id),
      loadResource(db, INTEGRATIONS, theirs.id, other.id),
      loadResource(db, INTEGRATIONS, mine.id, crypto.randomUUID()),
      loadResource(db, INTEGRATIONS, mine.id, integration.id),
      loadResource(db, MCP_SERVERS, mine.id, server.id),
    ]);

    expect(counter.statements).toBe(2);
    expect(own).toMatchObject({ id: integration.id, workspaceId: mine.id, name: integration.name, agentCount: 0 });
    expect(probed).toBeUndefined();
    expect(foreign).toMatchObject({ id: other.id, workspaceId: theirs.id });
    expect(missing).toBeUndefined();
    expect(again).toMatchObject({ id: integration.id });
    expect(mcp).toMatchObject({ id: server.id, config: { transport: 'stdio' } });
  });

  it('reads afresh each time: a renamed resource shows its new name on the next read', async () => {
    const workspace = await makeWorkspace(database.prisma);
    const integration = await makeIntegration(database.prisma, workspace.id);
    const read = () => loadResource(database.prisma, INTEGRATIONS, workspace.id, integration.id);
    expect(await read()).toMatchObject({ name: integration.name });
    await database.prisma.integration.update({ where: { id: integration.id }, data: { name: 'renamed' } });
    expect(await read()).toMatchObject({ name: 'renamed' });
  });
});
