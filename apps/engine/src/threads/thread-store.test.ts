import type { Message } from '@ag-ui/core';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { appendThreadMessages, loadThreadMessages, withTransaction } from './thread-store.js';

let database: TestDatabase;
let pool: pg.Pool;
let agentId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = database.createPool({ max: 10 });
  agentId = (await makeAgent(database.prisma, (await makeWorkspace(database.prisma)).id)).id;
});

afterAll(async () => {
  await database?.drop();
});

const turn = (writer: number): Message[] => [
  { id: `u${writer}`, role: 'user', content: `question ${writer}` },
  { id: `a${writer}`, role: 'assistant', content: `answer ${writer}` },
];

const storedSeqs = async (key: string) =>
  (
    await database.prisma.conversationMessage.findMany({
      where: { thread: { agentId, externalKey: key } },
      orderBy: { seq: 'asc' },
      select: { seq: true, message: true },
    })
  ).map((row) => ({ seq: row.seq, id: (row.message as { id: string }).id }));

describe('appendThreadMessages', () => {
  it('numbers concurrent appends to one thread without gaps or collisions, each turn kept together', async () => {
    const writers = Array.from({ length: 20 }, (_, writer) => writer);
    await Promise.all(writers.map((writer) => appendThreadMessages(pool, agentId, 'agui:race', turn(writer))));

    const stored = await storedSeqs('agui:race');
    expect(stored.map((row) => row.seq)).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
    for (let index = 0; index < stored.length; index += 2) {
      expect(stored[index + 1]?.id).toBe(`a${stored[index]?.id.slice(1)}`);
    }
    expect(new Set(stored.map((row) => row.id)).size).toBe(40);
    const thread = await database.prisma.conversationThread.findUniqueOrThrow({
      where: { agentId_externalKey: { agentId, externalKey: 'agui:race' } },
    });
    expect(thread.lastSeq).toBe(40);
    expect((await loadThreadMessages(pool, agentId, 'agui:race')).map((message) => message.id)).toEqual(
      stored.map((row) => row.id),
    );
  });

  it("leaves nothing behind when the caller's transaction rolls back", async () => {
    await appendThreadMessages(pool, agentId, 'agui:rollback', turn(1));
    await expect(
      withTransaction(pool, async (client) => {
        await appendThreadMessages(client, agentId, 'agui:rollback', turn(2));
        throw new Error('the reply could not be recorded');
      }),
    ).rejects.toThrow('could not be recorded');
    await appendThreadMessages(pool, agentId, 'agui:rollback', turn(3));

    expect(await storedSeqs('agui:rollback')).toEqual([
      { seq: 1, id: 'u1' },
      { seq: 2, id: 'a1' },
      { seq: 3, id: 'u3' },
      { seq: 4, id: 'a3' },
    ]);
  });
});
