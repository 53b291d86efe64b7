// Schedules the answering of queued WhatsApp messages, one at a time per engine: claim a due message,
// take the config current at that moment, process the claim (process-claim.ts) and record its outcome
// (claim-outcome.ts). Between messages it sleeps for the poll interval unless its webhook wakes it.
import type { Logger } from '@agentplane/server-kit';
import type { AgentDb } from '../database/agent-db.js';
import type { WhatsAppSettings } from '../env.js';
import type { RunStore } from '../runs/recorded-run.js';
import type { SnapshotSource } from '../snapshot/use-snapshot.js';
import { recordOutcome } from './claim-outcome.js';
import { type ClaimedMessage, claimInboundMessage, releaseClaim } from './inbound-queue.js';
import { processClaim } from './process-claim.js';

export type WhatsAppWorker = {
  /** Looks for due messages now instead of at the next poll. */
  wake: () => void;
  /** Stops claiming, aborts the message in hand and gives it back to the queue. */
  stop: () => Promise<void>;
};

export type WhatsAppWorkerOptions = {
  pool: AgentDb;
  source: SnapshotSource;
  agentId: string;
  settings: WhatsAppSettings;
  /** Where each reply's run is recorded. */
  runs: RunStore;
  logger: Logger;
};

export function startWhatsAppWorker({
  pool,
  source,
  agentId,
  settings,
  runs,
  logger,
}: WhatsAppWorkerOptions): WhatsAppWorker {
  const log = logger.child({ component: 'whatsapp-worker' });
  const stopping = new AbortController();
  // A wake while the worker is busy makes its next sleep return at once.
  let wokenEarly = false;
  let interruptSleep: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (wokenEarly || stopping.signal.aborted) {
        wokenEarly = false;
        resolve();
        return;
      }
      const finish = () => {
        clearTimeout(timer);
        interruptSleep = undefined;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      interruptSleep = finish;
    });
  const wake = () => {
    if (interruptSleep === undefined) wokenEarly = true;
    else interruptSleep();
  };

  const loop = async () => {
    while (!stopping.signal.aborted) {
      // An agent with no WhatsApp integration has nothing to answer: it costs its engine no query (a pool
      // holds thousands). Messages left by an integration since removed wait until one is added again.
      const current = source.current();
      if (current === undefined || !current.config.integrations.some((i) => i.provider === 'WHATSAPP')) {
        await sleep(settings.pollMs);
        continue;
      }
      let claim: ClaimedMessage | undefined;
      try {
        claim = await claimInboundMessage(pool, agentId, settings.leaseMs);
      } catch (error) {
        log.warn({ err: error }, 'could not claim a WhatsApp message');
      }
      // The config is taken after the claim, never before: a message that came in after a new config
      // was applied (a rotated access token, say) must be answered with that config.
      const snapshot = source.current();
      // A failed release only delays the message until its lease runs out.
      if (claim !== undefined && snapshot === undefined) await releaseClaim(pool, claim).catch(() => undefined);
      if (claim === undefined || snapshot === undefined) {
        await sleep(settings.pollMs);
        continue;
      }
      const messageLog = log.child({ message_id: claim.id, attempt: claim.attempts });
      const release = snapshot.lease();
      try {
        const context = { pool, agentId, settings, runs, signal: stopping.signal, log: messageLog };
        const outcome = await processClaim(context, claim, snapshot);
        if ((await recordOutcome(pool, claim, outcome, messageLog)) && outcome.kind === 'retry') {
          runs?.metrics.whatsappRetries.inc();
        }
      } catch (error) {
        // The database failed while recording the outcome: the lease runs out and the message comes back.
        messageLog.error({ err: error }, 'could not record a WhatsApp message outcome');
      } finally {
        release();
      }
    }
  };
  const running = loop();

  return {
    wake,
    stop: async () => {
      stopping.abort();
      wake();
      await running;
    },
  };
}
