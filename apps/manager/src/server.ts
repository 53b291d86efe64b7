import type { AddressInfo } from 'node:net';
import { createAgentKeyring, createPrisma, createSecretBox, readMigrationStatus } from '@agentplane/db';
import { ConfigError, createLogger, serve, startOperatorTracing } from '@agentplane/server-kit';
import { createManagerApp } from './app.js';
import { pruneRateLimitCounters } from './auth/postgres-rate-limit-store.js';
import { PrismaSessionStore } from './auth/session-store.js';
import { loadManagerConfig } from './config.js';
import { startEngineLockWatchdog } from './engine-roles/engine-lock-watchdog.js';
import { requireCreateRole } from './engine-roles/require-create-role.js';
import { createExperimentWorker } from './experiments/experiment-worker.js';
import { pruneExpiredInvitations } from './invitations/invitation-service.js';
import { serveManagerMetrics } from './metrics/serve-manager-metrics.js';
import { startOnlineScoring } from './evaluations/online/start-online-scoring.js';
import { createScheduler, SCHEDULE_FIRES_KEPT } from './schedules/scheduler.js';
import { upgradeStoredData } from './start-up/upgrade-stored-data.js';
import { startWebhookDelivery } from './webhooks/start-webhook-delivery.js';

const PRUNE_INTERVAL_MS = 10 * 60_000;

async function main(): Promise<void> {
  const config = loadManagerConfig();
  const logger = createLogger({ name: 'manager', level: config.logLevel });
  const tracing = startOperatorTracing('agentplane-manager', config.tracing);
  if (config.session.secretIsEphemeral) {
    logger.warn(
      'SESSION_SECRET is not set: using a random secret, so every restart signs everybody out. Set it in any shared deployment.',
    );
  }
  const db = createPrisma(config.databaseUrl, {
    preparedStatements: config.preparedStatements,
    onPoolError: (error) => logger.warn({ err: error }, 'an idle database connection failed and was dropped'),
  });
  await requireCreateRole(db);
  const { pending } = await readMigrationStatus(db);
  if (pending.length > 0) {
    // The upgrade below and every agent create need the engine roles migration.
    throw new ConfigError(`Migrations are pending: ${pending.join(', ')}. Run \`pnpm db:migrate\` first.`);
  }
  const { sealed, provisioned, versioned, placed, unserved } = await upgradeStoredData(db, {
    box: createSecretBox(config.secretsKey.current, config.secretsKey.previous),
    agentKeys: createAgentKeyring(config.secretsKey.current, config.secretsKey.previous),
    prices: config.modelPrices,
    engineRoles: config.engines.roles,
    enginePools: config.engines.pools,
    versionRetention: config.agentVersionRetention,
  });
  if (sealed > 0)
    logger.info({ rows: sealed }, 'sealed secrets stored in plaintext (URL queries stored before they were secrets)');
  if (provisioned > 0) logger.info({ agents: provisioned }, 'gave existing agents their engine database roles');
  if (versioned > 0) logger.info({ agents: versioned }, 'recorded a first version of agents published before versions');
  if (placed > 0) logger.info({ agents: placed }, "granted agents' roles to the pools they are placed on");
  if (unserved > 0) {
    logger.warn(
      { agents: unserved },
      'agents are placed on pools ENGINE_POOLS does not list: they have no engine_url until the pool is listed again or they are moved',
    );
  }
  const sessionStore = new PrismaSessionStore(db);
  sessionStore.on('error', (error: unknown) => logger.error({ err: error }, 'a session callback threw'));

  const prune = setInterval(() => {
    Promise.all([sessionStore.pruneExpired(), pruneRateLimitCounters(db), pruneExpiredInvitations(db)]).catch(
      (error: unknown) => logger.warn({ err: error }, 'pruning expired sessions, counters or invitations failed'),
    );
  }, PRUNE_INTERVAL_MS);
  prune.unref();

  const watchdog = await startEngineLockWatchdog(
    db,
    { ...config.engines.watchdog, roles: config.engines.roles },
    logger,
  );

  const webhooks = startWebhookDelivery({ db, config, logger });
  const onlineScoring = await startOnlineScoring({ db, config, logger });

  const served = await serveManagerMetrics(config.metrics, logger);
  // With PORT=0 only the listening server knows the port the default issuer must name.
  const issuerFor = (port: number) => (config.issuerIsDefault ? `http://localhost:${port}` : config.issuer);
  const scheduler = createScheduler({
    db,
    logger: logger.child({ component: 'scheduler' }),
    now: () => new Date(),
    pollMs: config.schedules.pollMs,
    maxConsecutiveFailures: config.schedules.maxConsecutiveFailures,
    firesKept: SCHEDULE_FIRES_KEPT,
  });
  const experiments = createExperimentWorker({
    db,
    box: createSecretBox(config.secretsKey.current, config.secretsKey.previous),
    agentKeys: createAgentKeyring(config.secretsKey.current, config.secretsKey.previous),
    egressAllow: config.egressAllow,
    logger: logger.child({ component: 'experiments' }),
    pollMs: config.experiments.pollMs,
    judgeTimeoutMs: config.scorers.judgeTimeoutMs,
  });
  const listening = await serve(
    ({ port }) =>
      createManagerApp({
        config: { ...config, issuer: issuerFor(port) },
        db,
        logger,
        sessionStore,
        metrics: served?.metrics,
        wakeWebhooks: webhooks.wake,
        wakeExperiments: experiments.wake,
      }),
    {
      port: config.port,
      host: config.host,
      logger,
      handleSignals: true,
      onClose: async () => {
        await scheduler.stop();
        await experiments.stop();
        clearInterval(prune);
        await webhooks.stop();
        await onlineScoring.stop();
        await watchdog.stop();
        await served?.listener.close();
        await db.$disconnect();
        await tracing?.shutdown();
      },
    },
  );
  // Scheduled runs carry the issuer of the tokens the manager mints, known once it listens.
  const issuer = issuerFor((listening.server.address() as AddressInfo).port);
  scheduler.start(issuer);
  experiments.start(issuer);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
