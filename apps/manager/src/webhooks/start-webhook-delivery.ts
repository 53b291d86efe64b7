// The manager's delivery worker with what it needs built from the config: the secret box that opens
// endpoint secrets, and the connect-time egress policy every delivery goes through.
import { createSecretBox, type Db } from '@agentplane/db';
import { createEgressPolicy, type Logger } from '@agentplane/server-kit';
import type { ManagerConfig } from '../config.js';
import { startWebhookWorker, type WebhookWorker } from './webhook-worker.js';

export const MANAGER_EGRESS_ALLOW_HINT = 'the operator can allow it with EGRESS_ALLOW';

export function startWebhookDelivery({
  db,
  config,
  logger,
}: {
  db: Db;
  config: Pick<ManagerConfig, 'secretsKey' | 'egressAllow' | 'webhooks'>;
  logger: Logger;
}): WebhookWorker {
  const egress = createEgressPolicy({
    allow: config.egressAllow,
    hint: MANAGER_EGRESS_ALLOW_HINT,
    onRefused: ({ host, address, range }) =>
      logger.warn({ host, address, range }, 'a webhook delivery was refused by the egress policy'),
  });
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
