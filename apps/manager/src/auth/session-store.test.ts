// The store's batching: concurrent loads share a query, and nothing is cached between requests.
import { createTestDatabase, makeUser, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SessionData } from 'express-session';
import { countingSql } from '../testing/counting-sql.js';
import { PrismaSessionStore } from './session-store.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

const cookie = { originalMaxAge: 60_000, expires: new Date(Date.now() + 60_000), httpOnly: true, path: '/' };

function promised<T>(call: (callback: (error: unknown, value?: T) => void) => void): Promise<T | undefined> {
  return new Promise((resolve, reject) => call((error, value) => (error ? reject(error) : resolve(value))));
}

/** The store over the real database, counting the SQL statements it sends straight to the pool. */
function countingStore() {
  const { db, counter } = countingSql(database.prisma);
  return { store: new PrismaSessionStore(db), counter };
}

async function signedIn(store: PrismaSessionStore, sid: string) {
  const user = await makeUser(database.prisma);
  const workspace = await makeWorkspace(database.prisma);
  await database.prisma.membership.create({ data: { userId: user.id, workspaceId: workspace.id, role: 'admin' } });
  const data = { cookie, userId: user.id } as unknown as SessionData;
  await promised<void>((callback) => store.set(sid, data, callback));
  return { userId: user.id, workspaceId: workspace.id };
}

describe('PrismaSessionStore.get', () => {
  it('loads the sessions asked for together in one query, each with its own user and memberships', async () => {
    const { store, counter } = countingStore();
    const alice = await signedIn(store, 'sid-alice');
    const bob = await signedIn(store, 'sid-bob');
    counter.statements = 0;

    const load = (sid: string) => promised<SessionData | null>((callback) => store.get(sid, callback));
    const [a, b, missing, again] = await Promise.all([
      load('sid-alice'),
      load('sid-bob'),
      load('sid-nobody'),
      load('sid-alice'),
    ]);

    expect(counter.statements).toBe(1);
    expect(a).toMatchObject({ userId: alice.userId, memberships: [{ workspaceId: alice.workspaceId, role: 'admin' }] });
    expect(b).toMatchObject({ userId: bob.userId, memberships: [{ workspaceId: bob.workspaceId, role: 'admin' }] });
    expect(missing).toBeNull();
    expect(again).toMatchObject({ userId: alice.userId });
  });

  it('reads afresh for every load: a membership removed or a session destroyed shows at once', async () => {
    const { store, counter } = countingStore();
    const carol = await signedIn(store, 'sid-carol');
    const load = () => promised<SessionData | null>((callback) => store.get('sid-carol', callback));
    expect((await load())?.memberships).toHaveLength(1);

    await database.prisma.membership.deleteMany({ where: { userId: carol.userId } });
    expect((await load())?.memberships).toEqual([]);
    await promised<void>((callback) => store.destroy('sid-carol', callback));
    expect(await load()).toBeNull();
    expect(counter.statements).toBe(3);
  });
});

describe('PrismaSessionStore.touch', () => {
  it('moves last_seen_at and the idle expiry ahead, writing at most once a minute', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const store = new PrismaSessionStore(database.prisma, () => now);
    await signedIn(store, 'sid-touched');
    const touch = () => promised<void>((callback) => store.touch('sid-touched', {} as SessionData, callback));
    const row = () => database.prisma.session.findUniqueOrThrow({ where: { sid: 'sid-touched' } });
    expect((await row()).lastSeenAt.getTime()).toBe(now);

    now += 30_000;
    await touch();
    expect((await row()).lastSeenAt.getTime()).toBe(now - 30_000);
    now += 31_000;
    await touch();
    expect(await row()).toMatchObject({ lastSeenAt: new Date(now), expiresAt: new Date(now + 24 * 3600 * 1000) });
  });
});

describe('PrismaSessionStore callbacks', () => {
  it('calls a callback that throws exactly once, and reports its error as the store error event', async () => {
    const { store } = countingStore();
    await signedIn(store, 'sid-dave');
    const thrown = new Error('the callback failed');
    const calls: unknown[] = [];
    const reported: unknown[] = [];
    store.on('error', (error) => reported.push(error));
    store.get('sid-dave', (error) => {
      calls.push(error);
      if (calls.length === 1) throw thrown;
    });
    // Either outcome ends the wait: the error reported (right) or the callback called again (wrong).
    await waitUntil(() => reported.length > 0 || calls.length > 1, {
      what: 'the thrown error to be reported or the callback to be called again',
    });
    expect(calls).toEqual([null]);
    expect(reported).toEqual([thrown]);
  });
});
