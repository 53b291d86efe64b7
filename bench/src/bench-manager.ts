// The manager process the benchmarks talk to, on the bench's database.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { LOOPBACK_EGRESS_ALLOW } from '@agentplane/server-kit';
import { type Service, startService } from './service-process.js';

const MANAGER_ENTRY = fileURLToPath(new URL('../../apps/manager/dist/server.js', import.meta.url));

export function startBenchManager(options: {
  databaseUrl: string;
  secretsKey: string;
  port: number;
  env?: NodeJS.ProcessEnv;
}): Promise<Service> {
  return startService(
    MANAGER_ENTRY,
    {
      DATABASE_URL: options.databaseUrl,
      SECRETS_KEY: options.secretsKey,
      ISSUER_URL: `http://127.0.0.1:${options.port}`,
      SESSION_SECRET: randomBytes(32).toString('base64'),
      AUTH_RATE_LIMIT_PER_IP: '100000',
      // The benchmarks make their agents in one workspace, as many as they measure with.
      MAX_AGENTS_PER_WORKSPACE: '100000',
      // Each benchmark's agent gets engine credentials on this one database; their engines never all run at once.
      ENGINE_DB_CONNECTIONS_TOTAL: '100000',
      // Benchmark 5 runs two engines of one agent at once, each holding up to ENGINE_POOL_DB_CONNECTIONS
      // (10) and a LISTEN connection: past the role's default limit (20), the second one's runs get 503s.
      ENGINE_DB_CONNECTION_LIMIT: '30',
      NODE_ENV: 'development',
      // Benchmark 4's model is a local server.
      EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW,
      ...options.env,
    },
    '/api/v1/healthz',
    options.port,
  );
}
