// The manager's delivery worker with what it needs built from the config: the secret box that opens
// endpoint secrets, and the connect-time egress policy every delivery goes through.
import { createSecretBox, type Db } from '@agentplane/db';
import type { Logger } from '@agentplane/server-kit';
import type { ManagerConfig } from '../config.js';
import { createManagerEgressPolicy } from '../egress/manager-egress-policy.js';
import { startWebhookWorker, type WebhookWorker } from './webhook-worker.js';

export function startWebhookDelivery({
  db,
  config,
  logger,
}: {
  db: Db;
  config: Pick<ManagerConfig, 'secretsKey' | 'egressAllow' | 'webhooks'>;
  logger: Logger;
}): WebhookWorker {
  const egress = createManagerEgressPolicy(config.egressAllow, logger, 'a webhook delivery');
  const worker = startWebhookWorker({
    db,
    box: createSecretBox(config.secretsKey.current, config.secretsKey.previous),
    egress,
    logger,
    settings: config.webhooks.worker,
  });
  return {
    wake: worker.wake,
    stop: async () => {
      await worker.stop();
      await egress.close();
    },
  };
}
