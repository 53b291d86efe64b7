// At least once across a manager's death: the built manager is SIGKILLed while a receiver holds its
// delivery unanswered, and a manager started again delivers the event, with the same webhook-id, once
// the dead one's lease has run out.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TWebhookEndpointWithSecret } from '@agentplane/contracts';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import {
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
  TEST_SECRETS_KEY,
  TEST_SESSION_SECRET,
} from '../testing/manager-test-app.js';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.js';

const SERVER = fileURLToPath(new URL('../../dist/server.js', import.meta.url));
const RECEIVER_HOST = '127.0.0.2';

let ctx: ManagerTestContext;
let owner: SignedInUser;
let receiver: WebhookReceiver;
const children: ChildProcess[] = [];

beforeAll(async () => {
  const source = fileURLToPath(new URL('./webhook-worker.ts', import.meta.url));
  const built = fileURLToPath(new URL('../../dist/webhooks/webhook-worker.js', import.meta.url));
  if (!existsSync(built) || statSync(built).mtimeMs < statSync(source).mtimeMs) {
    throw new Error(`${built} is missing or older than its source: run "pnpm build" in apps/manager first`);
  }
  ctx = await startManagerTestApp({ EGRESS_ALLOW: RECEIVER_HOST });
  owner = await signUpUser(ctx.app);
  receiver = await startWebhookReceiver(RECEIVER_HOST);
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(
    children.map((child) => (child.exitCode === null && child.signalCode === null ? once(child, 'exit') : undefined)),
  );
  await receiver?.close();
  await ctx?.close();
});

function startManagerProcess(): ChildProcess {
  const child = spawn(process.execPath, [SERVER], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      DATABASE_URL: ctx.database.url,
      SESSION_SECRET: TEST_SESSION_SECRET,
      SECRETS_KEY: TEST_SECRETS_KEY,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      EGRESS_ALLOW: RECEIVER_HOST,
      CONSOLE_DIR: path.join(tmpdir(), 'agentplane-no-console'),
      WEBHOOK_TIMEOUT_MS: '30000',
      WEBHOOK_LEASE_MS: '31000',
      WEBHOOK_POLL_MS: '50',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}

it('delivers an event after the manager sending it was SIGKILLed mid-delivery', async () => {
  receiver.script('hang');
  const created = await owner.agent.post('/api/v1/webhooks').send({ url: receiver.url, event_types: ['run.failed'] });
  expect(created.status).toBe(201);
  const endpoint = created.body as TWebhookEndpointWithSecret;
  expect((await owner.agent.post(`/api/v1/webhooks/${endpoint.id}/test`)).status).toBe(201);

  const first = startManagerProcess();
  await waitUntil(() => receiver.received.length === 1, { what: 'the first manager to send', timeoutMs: 30_000 });
  first.kill('SIGKILL');
  await once(first, 'exit');
  // The dead manager's lease would hold for 31 s: brought forward, as the clock would, so the test need not wait.
  const [leased] = await ctx.database.prisma.$queryRaw<{ lease_owner: string | null; status: string }[]>`
    UPDATE webhook_deliveries SET lease_expires_at = now() WHERE endpoint_id = ${endpoint.id}::uuid
    RETURNING lease_owner, status`;
  expect(leased).toMatchObject({ status: 'pending', lease_owner: expect.any(String) });

  startManagerProcess();
  await waitUntil(() => receiver.received.length === 2, { what: 'the restarted manager to send', timeoutMs: 30_000 });
  const [before, after] = receiver.received;
  expect(after?.headers['webhook-id']).toBe(before?.headers['webhook-id']);
  expect(
    new Webhook(endpoint.secret).verify(after?.body ?? '', after?.headers as Record<string, string>),
  ).toMatchObject({
    type: 'webhook.test',
  });
  await waitUntil(
    async () => {
      const rows = await ctx.database.prisma.webhookDelivery.findMany({ where: { endpointId: endpoint.id } });
      return rows[0]?.status === 'succeeded';
    },
    { what: 'the delivery to be recorded as succeeded', timeoutMs: 30_000 },
  );
  const [delivery] = await ctx.database.prisma.webhookDelivery.findMany({
    where: { endpointId: endpoint.id },
    include: { attemptsLog: true },
  });
  // The killed attempt was counted when claimed; only the one that got an answer is in the log.
  expect(delivery).toMatchObject({ attempts: 2, lastStatusCode: 200 });
  expect(delivery?.attemptsLog.map((attempt) => attempt.attempt)).toEqual([2]);
});
