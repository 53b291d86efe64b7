// `pnpm start`: PostgreSQL (embedded unless DATABASE_URL is set), migrations, then the manager and
// an engine as child processes with prefixed logs. Ctrl-C stops them all, then the database.
import { fileURLToPath } from 'node:url';
import { migrate } from '@agentplane/db';
import { startLocalPostgres } from '@agentplane/db/embedded';
import { localSecretsKey } from './local-secrets.js';
import { say } from './prefixed-output.js';
import { type ServiceProcess, startService } from './service-process.js';

const STOP_TIMEOUT_MS = 10_000;
const entryOf = (app: string) => fileURLToPath(new URL(`../../${app}/dist/server.js`, import.meta.url));

async function main(): Promise<void> {
  const local = process.env.DATABASE_URL ? undefined : await startLocalPostgres((line) => say('postgres', line));
  const databaseUrl = process.env.DATABASE_URL || local?.databaseUrl || '';
  if (local) say('launcher', 'embedded PostgreSQL is up (data in .data/postgres)');

  let services: ServiceProcess[] = [];
  let stopping: Promise<void> | undefined;
  const stopAll = (exitCode: number) => {
    stopping ??= (async () => {
      await Promise.all(services.map((service) => service.stop(STOP_TIMEOUT_MS)));
      await local?.stop().catch((error: unknown) => say('launcher', `postgres stop: ${String(error)}`));
      say('launcher', 'stopped');
      process.exit(exitCode);
    })();
    return stopping;
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  try {
    const { applied } = await migrate({ databaseUrl, log: (line) => say('migrate', line) });
    say('migrate', applied.length ? `applied ${applied.length} migration(s)` : 'database is up to date');
  } catch (error) {
    say('migrate', error instanceof Error ? error.message : String(error));
    return stopAll(1);
  }

  const managerPort = process.env.MANAGER_PORT ?? '8000';
  const enginePort = process.env.ENGINE_PORT ?? '8001';
  const baseEnv = { ...process.env, DATABASE_URL: databaseUrl, SECRETS_KEY: await localSecretsKey() };
  services = [
    startService('manager', entryOf('manager'), { ...baseEnv, PORT: managerPort }, 0),
    startService('engine', entryOf('engine'), { ...baseEnv, PORT: enginePort }, 1),
  ];
  for (const service of services) {
    void service.exited.then((code) => {
      if (stopping !== undefined) return;
      say('launcher', `${service.name} exited unexpectedly (code ${code}); stopping the platform`);
      void stopAll(1);
    });
  }
  say('launcher', `manager: http://localhost:${managerPort}/api/v1/healthz`);
  say('launcher', `engine:  http://localhost:${enginePort}/health`);
  say('launcher', 'press Ctrl-C to stop');
}

main().catch((error: unknown) => {
  say('launcher', `failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
