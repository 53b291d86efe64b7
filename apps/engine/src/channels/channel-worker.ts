// Schedules the answering of an agent's queued channel messages, one at a time per engine: claim a due
// message, take the config current at that moment, process the claim (process-claim.ts) and record its
// outcome (claim-outcome.ts). Between messages it sleeps for the poll interval unless a webhook wakes it.
import type { Logger } from '@agentplane/server-kit';
import type { AgentDb } from '../database/agent-db.js';
import type { ChannelWorkerSettings } from '../env.js';
import type { RunStore } from '../runs/recorded-run.js';
import type { SnapshotSource } from '../snapshot/use-snapshot.js';
import type { ChannelAdapters } from './channel-adapters.js';
import { recordOutcome } from './claim-outcome.js';
import { type ClaimedMessage, claimInboundMessage, releaseClaim } from './inbound-queue.js';
import { processClaim } from './process-claim.js';

export type ChannelWorker = {
  /** Looks for due messages now instead of at the next poll. */
  wake: () => void;
  /** Stops claiming, aborts the message in hand and gives it back to the queue. */
  stop: () => Promise<void>;
};

export type ChannelWorkerOptions = {
  pool: AgentDb;
  source: SnapshotSource;
  agentId: string;
  settings: ChannelWorkerSettings;
  adapters: ChannelAdapters;
  /** Where each reply's run is recorded. */
  runs: RunStore;
  logger: Logger;
};

export function startChannelWorker({
  pool,
  source,
  agentId,
  settings,
  adapters,
  runs,
  logger,
}: ChannelWorkerOptions): ChannelWorker {
  const log = logger.child({ component: 'channel-worker' });
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

  // The config version whose queue was found empty while the agent had no channel integration.
  let drainedVersion: number | undefined;
  const loop = async () => {
    while (!stopping.signal.aborted) {
      // An agent with no channel integration has nothing to answer: polling its queue would cost a query
      // a second for each of a pool's thousands of agents. Once per config version it still takes what is
      // queued, so the messages of an integration since removed are skipped: left pending, they would
      // keep the agent's pool reloading it (engine_placements' has_work) after every idle unload.
      const current = source.current();
      const answers = current?.config.integrations.some((i) => adapters.byProvider(i.provider) !== undefined);
      if (current === undefined || (!answers && drainedVersion === current.version)) {
        await sleep(settings.pollMs);
        continue;
      }
      let claim: ClaimedMessage | undefined;
      try {
        claim = await claimInboundMessage(pool, agentId, settings.leaseMs);
        if (claim === undefined && !answers) drainedVersion = current.version;
      } catch (error) {
        log.warn({ err: error }, 'could not claim a channel message');
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
      const messageLog = log.child({ message_id: claim.id, provider: claim.provider, attempt: claim.attempts });
      const release = snapshot.lease();
      try {
        const context = { pool, agentId, settings, adapters, runs, signal: stopping.signal, log: messageLog };
        const outcome = await processClaim(context, claim, snapshot);
        if ((await recordOutcome(pool, claim, outcome, messageLog)) && outcome.kind === 'retry') {
          runs?.metrics.channelRetries.inc({ provider: claim.provider });
        }
      } catch (error) {
        // The database failed while recording the outcome: the lease runs out and the message comes back.
        messageLog.error({ err: error }, 'could not record a channel message outcome');
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
