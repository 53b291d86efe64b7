// Every outcome of one claimed WhatsApp message, against a real PostgreSQL and a fake Graph API: what
// processClaim decides, and what recordOutcome writes under the claim's lease (or does not, once the
// lease is lost).
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { createLogger } from '@agentplane/server-kit';
import { waitUntil } from '@agentplane/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import type { WhatsAppSettings } from '../env.js';
import type { RunningEngine } from '../start-engine.js';
import { type FakeGraphApi, startFakeGraphApi } from '../testing/fake-graph-api.js';
import { hold } from '../testing/gate.js';
import { engineCredentialsFor, soleHolder, startFileEngine } from '../testing/test-engine.js';
import { makeWhatsAppConfig, type PublishedAgent, publishWhatsAppAgent } from '../testing/whatsapp-agent.js';
import { recordOutcome } from './claim-outcome.js';
import { type ClaimedMessage, claimInboundMessage, enqueueInboundMessages } from './inbound-queue.js';
import { type ClaimContext, processClaim } from './process-claim.js';

const whatsapp = makeWhatsAppConfig();
const log = createLogger({ name: 'process-claim-test', level: 'silent' });
let database: TestDatabase;
let graph: FakeGraphApi;
let agent: PublishedAgent;
let integrationId: string;
// Only a config holder: without DATABASE_URL this engine runs no worker of its own.
let snapshotEngine: RunningEngine;
let pool: pg.Pool;
let settings: WhatsAppSettings;

beforeAll(async () => {
  database = await createTestDatabase();
  graph = await startFakeGraphApi();
  agent = await publishWhatsAppAgent(database, whatsapp);
  const config = agent.configWith(whatsapp);
  integrationId = (config.integrations[0] as { id: string }).id;
  snapshotEngine = await startFileEngine(config);
  pool = new pg.Pool({ connectionString: (await engineCredentialsFor(database, agent.agentId)).DATABASE_URL, max: 2 });
  settings = {
    graphApiBaseUrl: graph.baseUrl,
    graphApiTimeoutMs: 30_000,
    maxAttempts: 3,
    retryBaseMs: 1000,
    pollMs: 1000,
    leaseMs: 60_000,
    unsupportedMessageReply: 'Text only, please.',
    budgetExceededReply: 'Over budget.',
    guardrailBlockedReply: 'Not that, sorry.',
    retentionMs: 86_400_000,
  };
});

afterEach(async () => {
  await database.prisma.inboundMessage.deleteMany({ where: { agentId: agent.agentId } });
});

afterAll(async () => {
  await pool?.end();
  await snapshotEngine?.shutdown();
  await graph?.close();
  await database?.drop();
});

let senders = 0;
const newSender = () => `4917100${String(++senders).padStart(5, '0')}`;

type NewMessage = { sender: string; text?: string; type?: string; integration?: string; attempts?: number };

/** Queues one message and claims it, as the worker would. */
async function claimNew({ sender, text = 'hi', type = 'text', integration, attempts }: NewMessage) {
  const id = `wamid.${randomUUID()}`;
  const payload = { from: sender, id, type, ...(type === 'text' ? { text: { body: text } } : {}) };
  const message = { integrationId: integration ?? integrationId, providerMessageId: id, sender, payload };
  await enqueueInboundMessages(pool, agent.agentId, [message]);
  if (attempts !== undefined) {
    await database.prisma.inboundMessage.updateMany({ where: { providerMessageId: id }, data: { attempts } });
  }
  const claim = await claimInboundMessage(pool, agent.agentId, settings.leaseMs);
  expect(claim?.providerMessageId).toBe(id);
  return claim as ClaimedMessage;
}

const contextWith = (signal = new AbortController().signal): ClaimContext => ({
  pool,
  agentId: agent.agentId,
  settings,
  signal,
  log,
});

const snapshot = () => {
  const current = soleHolder(snapshotEngine).current();
  if (current === undefined) throw new Error('the file engine serves no config');
  return current;
};

const rowOf = (claim: ClaimedMessage) => database.prisma.inboundMessage.findUniqueOrThrow({ where: { id: claim.id } });
const callsTo = (sender: string) => graph.requests.filter((request) => request.body.to === sender);
const repliesTo = (sender: string) => graph.delivered.filter((request) => request.body.to === sender);

/** What a second worker does once the first one's lease ran out: it holds the row under a new lease. */
const stealLease = (claim: ClaimedMessage) =>
  database.prisma
    .$executeRaw`UPDATE inbound_messages SET locked_until = locked_until + interval '1 minute' WHERE id = ${claim.id}::uuid`;

const longText = Array.from({ length: 1000 }, (_, i) => `word${i}`).join(' ');

describe('processClaim and recordOutcome', () => {
  it('done: the reply is stored, sent and the message marked done', async () => {
    const sender = newSender();
    const claim = await claimNew({ sender, text: 'hello' });
    const outcome = await processClaim(contextWith(), claim, snapshot());
    expect(outcome).toEqual({ kind: 'done' });
    expect(await recordOutcome(pool, claim, outcome, log)).toBe(true);
    expect(await rowOf(claim)).toMatchObject({
      status: 'done',
      replyText: 'You said: hello',
      replyPartsSent: 1,
      lockedUntil: null,
    });
    expect(repliesTo(sender).map((request) => request.body.text?.body)).toEqual(['You said: hello']);
  });

  it('done: anything but text is answered with the configured reply', async () => {
    const sender = newSender();
    const claim = await claimNew({ sender, type: 'image' });
    expect(await processClaim(contextWith(), claim, snapshot())).toEqual({ kind: 'done' });
    expect(repliesTo(sender).map((request) => request.body.text?.body)).toEqual(['Text only, please.']);
  });

  it('retry: a Graph 500 is retried after the backoff, with the reply kept for the next attempt', async () => {
    const sender = newSender();
    graph.script(whatsapp.phoneNumberId, { status: 500 });
    const claim = await claimNew({ sender, text: 'again' });
    const outcome = await processClaim(contextWith(), claim, snapshot());
    expect(outcome).toMatchObject({ kind: 'retry', reason: expect.stringMatching(/HTTP 500/) });
    // First attempt: the base delay, ±50 %.
    const { delayMs } = outcome as { delayMs: number };
    expect(delayMs).toBeGreaterThanOrEqual(500);
    expect(delayMs).toBeLessThanOrEqual(1500);
    expect(await recordOutcome(pool, claim, outcome, log)).toBe(true);
    const row = await rowOf(claim);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, replyText: 'You said: again', lockedUntil: null });
    expect(row.lastError).toMatch(/HTTP 500/);
  });

  it('retry: a Graph 429 is retried no sooner than its Retry-After says, even when the backoff is shorter', async () => {
    const sender = newSender();
    graph.script(whatsapp.phoneNumberId, { status: 429, code: 130429, headers: { 'Retry-After': '120' } });
    const claim = await claimNew({ sender });
    const outcome = await processClaim(contextWith(), claim, snapshot());
    expect(outcome).toMatchObject({
      kind: 'retry',
      delayMs: 120_000,
      graph: { graph_status: 429, graph_code: 130429 },
    });
    await recordOutcome(pool, claim, outcome, log);
    const row = await rowOf(claim);
    expect(row.status).toBe('pending');
    expect(row.nextAttemptAt.getTime() - row.updatedAt.getTime()).toBe(120_000);
  });

  it('failed: a Graph 4xx other than 429 is not retried', async () => {
    const sender = newSender();
    graph.script(whatsapp.phoneNumberId, { status: 400, code: 131026, message: 'Message undeliverable.' });
    const claim = await claimNew({ sender });
    const outcome = await processClaim(contextWith(), claim, snapshot());
    expect(outcome).toMatchObject({ kind: 'failed', graph: { graph_status: 400, graph_code: 131026 } });
    await recordOutcome(pool, claim, outcome, log);
    expect((await rowOf(claim)).lastError).toMatch(/HTTP 400: Message undeliverable\. \(code 131026\)/);
    expect((await rowOf(claim)).status).toBe('failed');
  });

  it('failed: a retryable failure on the last allowed attempt fails the message', async () => {
    const sender = newSender();
    graph.script(whatsapp.phoneNumberId, { status: 503 });
    const claim = await claimNew({ sender, attempts: settings.maxAttempts - 1 });
    expect(claim.attempts).toBe(settings.maxAttempts);
    const outcome = await processClaim(contextWith(), claim, snapshot());
    expect(outcome).toMatchObject({ kind: 'failed', reason: expect.stringMatching(/HTTP 503/) });
  });

  it('skipped: a message for an integration the config no longer has is not answered', async () => {
    const sender = newSender();
    const claim = await claimNew({ sender, integration: randomUUID() });
    const outcome = await processClaim(contextWith(), claim, snapshot());
    expect(outcome).toMatchObject({ kind: 'skipped' });
    await recordOutcome(pool, claim, outcome, log);
    expect((await rowOf(claim)).status).toBe('skipped');
    expect(callsTo(sender)).toHaveLength(0);
  });

  it('released: a stop while Graph is asked gives the message back, and the attempt does not count', async () => {
    const sender = newSender();
    const answer = hold();
    graph.script(whatsapp.phoneNumberId, { status: 200, gate: answer.gate });
    const claim = await claimNew({ sender });
    const stopping = new AbortController();
    try {
      const processing = processClaim(contextWith(stopping.signal), claim, snapshot());
      await waitUntil(() => callsTo(sender).length === 1, { what: 'the reply to reach Graph' });
      stopping.abort();
      const outcome = await processing;
      expect(outcome).toEqual({ kind: 'released' });
      expect(await recordOutcome(pool, claim, outcome, log)).toBe(true);
    } finally {
      answer.release();
    }
    expect(await rowOf(claim)).toMatchObject({ status: 'pending', attempts: 0, lockedUntil: null });
  });
});

describe('a lost lease', () => {
  it('stops a multi-part reply at once: no part after the one whose record found the lease gone', async () => {
    const sender = newSender();
    const firstPart = hold();
    graph.script(whatsapp.phoneNumberId, { status: 200, gate: firstPart.gate });
    const claim = await claimNew({ sender, text: longText });
    let processing: Promise<unknown> | undefined;
    try {
      processing = processClaim(contextWith(), claim, snapshot());
      await waitUntil(() => callsTo(sender).length === 1, { what: 'the first part to reach Graph' });
      await stealLease(claim);
    } finally {
      firstPart.release();
    }
    const outcome = await processing;
    expect(outcome).toEqual({ kind: 'lease_lost', during: 'recording part 1 of 2' });
    // processClaim has returned: nothing more can be sent for this claim.
    expect(callsTo(sender)).toHaveLength(1);
    expect(await recordOutcome(pool, claim, outcome as { kind: 'lease_lost'; during: string }, log)).toBe(false);
    // The new holder's row is untouched: it sends the second part, and the first again (the documented window).
    expect(await rowOf(claim)).toMatchObject({ status: 'processing', replyPartsSent: 0, attempts: 1 });
  });

  it('makes recordOutcome write nothing: the new holder records the outcome', async () => {
    const sender = newSender();
    const claim = await claimNew({ sender });
    const outcome = await processClaim(contextWith(), claim, snapshot());
    expect(outcome).toEqual({ kind: 'done' });
    await stealLease(claim);
    expect(await recordOutcome(pool, claim, outcome, log)).toBe(false);
    expect(await rowOf(claim)).toMatchObject({ status: 'processing' });
  });
});
