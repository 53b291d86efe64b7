// The manager's online scoring worker with what it needs built from the config: the secret box that
// opens judge keys, the connect-time egress policy every judge call goes through, and the operator's
// queue cap applied to every agent's settings before the first claim.
import { createSecretBox, type Db } from '@agentplane/db';
import type { Logger } from '@agentplane/server-kit';
import type { ManagerConfig } from '../../config.js';
import { createManagerEgressPolicy } from '../../egress/manager-egress-policy.js';
import { type OnlineScoringWorker, startOnlineScoringWorker } from './online-scoring-worker.js';
import { applyMaxQueued } from './scoring-queue.js';

export async function startOnlineScoring({
  db,
  config,
  logger,
  owner,
}: {
  db: Db;
  config: Pick<ManagerConfig, 'secretsKey' | 'egressAllow' | 'onlineScoring' | 'scorers'>;
  logger: Logger;
  owner?: string;
}): Promise<OnlineScoringWorker> {
  await applyMaxQueued(db, config.onlineScoring.maxQueuedPerAgent);
  const egress = createManagerEgressPolicy(config.egressAllow, logger, 'a model judge');
  const worker = startOnlineScoringWorker({
    db,
    box: createSecretBox(config.secretsKey.current, config.secretsKey.previous),
    egress,
    judgeTimeoutMs: config.scorers.judgeTimeoutMs,
    logger: logger.child({ component: 'online-scoring' }),
    settings: config.onlineScoring,
    ...(owner === undefined ? {} : { owner }),
  });
  // Once, however often it is asked: the egress policy's dispatcher refuses a second close.
  let stopped: Promise<void> | undefined;
  return {
    stop: () => {
      stopped ??= worker.stop().then(() => egress.close());
      return stopped;
    },
  };
}
