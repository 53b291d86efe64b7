// Test wiring: the real manager app on a database of the suite's own, and users signed in through
// the real HTTP API. Nothing of ours is mocked.
import { randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TMe } from '@agentplane/contracts';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { createLogger, LOOPBACK_EGRESS_ALLOW } from '@agentplane/server-kit';
import request from 'supertest';
import { createManagerApp, type ManagerApp } from '../app.js';
import { setPlatformOperator } from '../auth/platform-operators.js';
import { loadManagerConfig, type ManagerConfig } from '../config.js';
import { provisionEnginePools } from '../engine-pools/provision-engine-pools.js';
import { serveManagerMetrics } from '../metrics/serve-manager-metrics.js';

export type ManagerTestContext = {
  app: ManagerApp;
  config: ManagerConfig;
  database: TestDatabase;
  /** The /metrics URL, when the env sets METRICS_PORT. */
  metricsUrl: string | undefined;
  close: () => Promise<void>;
};

export const TEST_SESSION_SECRET = 'test-session-secret-that-is-long-enough-0123456789';
export const TEST_SECRETS_KEY = randomBytes(32).toString('base64');

export async function startManagerTestApp(env: NodeJS.ProcessEnv = {}): Promise<ManagerTestContext> {
  const database = await createTestDatabase();
  const config = loadManagerConfig({
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    SESSION_SECRET: TEST_SESSION_SECRET,
    SECRETS_KEY: TEST_SECRETS_KEY,
    // Generous by default so that suites signing in many users are not throttled; the rate-limit suite lowers them.
    AUTH_RATE_LIMIT_PER_IP: '100000',
    AUTH_FAILURES_BEFORE_BACKOFF: '100000',
    // Suites issue engine credentials to many agents on one database; the cap's own suite keeps the default.
    ENGINE_DB_CONNECTIONS_TOTAL: '100000',
    // Test peers listen on loopback (pnpm start allows none); the egress suite sets EGRESS_ALLOW itself.
    EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW,
    // Whether apps/console is built must not change what a suite sees; the console's suite sets its own.
    CONSOLE_DIR: path.join(tmpdir(), 'agentplane-no-console'),
    ...env,
  });
  // As a manager does at start: the pools' roles exist before an agent is placed on one.
  await provisionEnginePools(database.prisma, config.engines.pools);
  const logger = createLogger({ name: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const served = await serveManagerMetrics(config.metrics, logger);
  const app = createManagerApp({ config, db: database.prisma, logger, metrics: served?.metrics });
  return {
    app,
    config,
    database,
    metricsUrl: served?.listener.url,
    close: async () => {
      await served?.listener.close();
      await database.drop();
    },
  };
}

/**
 * A pool name of the calling suite's own: pool roles are cluster-wide, and suites share the server.
 * `ENGINE_POOLS` for `startManagerTestApp` is `${name}=http://...`.
 */
export function uniquePoolName(label = 'p'): string {
  return `${label}_${randomBytes(5).toString('hex')}`;
}

export type SignedInUser = {
  /** A supertest agent that keeps the session cookie. */
  agent: ReturnType<typeof request.agent>;
  me: TMe;
  email: string;
  password: string;
  userId: string;
  /** The personal workspace created at sign-up. */
  workspaceId: string;
};

export async function signUpUser(
  app: ManagerApp,
  options: { email?: string; password?: string; name?: string } = {},
): Promise<SignedInUser> {
  const email = options.email ?? `user-${randomUUID().slice(0, 8)}@example.test`;
  const password = options.password ?? 'correct horse battery staple';
  const agent = request.agent(app);
  const response = await agent
    .post('/api/v1/auth/signup')
    .send({ email, password, ...(options.name ? { name: options.name } : {}) });
  if (response.status !== 201) throw new Error(`sign-up failed: ${response.status} ${response.text}`);
  const me = response.body as TMe;
  return { agent, me, email, password, userId: me.user.id, workspaceId: me.default_workspace_id as string };
}

/** Makes the user a platform operator, who may issue engine credentials, as `agentplane-manager operator --grant` does. */
export async function makePlatformOperator(ctx: ManagerTestContext, user: SignedInUser): Promise<void> {
  if (!(await setPlatformOperator(ctx.database.prisma, user.email, true))) throw new Error(`no user ${user.email}`);
}

/** Invites `email` to `owner`'s workspace with a role; returns the invitation's token. */
export async function inviteToWorkspace(
  owner: SignedInUser,
  email: string,
  role: string,
  workspaceId = owner.workspaceId,
): Promise<string> {
  const response = await owner.agent.post(`/api/v1/workspaces/${workspaceId}/members/`).send({ email, role });
  if (response.status !== 201) throw new Error(`inviting failed: ${response.status} ${response.text}`);
  return (response.body as { token: string }).token;
}

/** Adds `member` to `owner`'s workspace with a role, through the API: an invitation, then its acceptance. */
export async function addToWorkspace(
  owner: SignedInUser,
  member: SignedInUser,
  role: string,
  workspaceId = owner.workspaceId,
) {
  const token = await inviteToWorkspace(owner, member.email, role, workspaceId);
  const response = await member.agent.post(`/api/v1/invitations/${token}/accept`);
  if (response.status !== 200) throw new Error(`accepting failed: ${response.status} ${response.text}`);
}

/** What keeps `response` from being a `status` problem+json answer (its text aside), or undefined when it is one. */
export function problemShapeFault(response: request.Response, status: number): string | undefined {
  if (response.status !== status) return `expected ${status}, got ${response.status}`;
  if (!/^application\/problem\+json/.test(String(response.headers['content-type']))) {
    return `expected problem+json, got ${response.headers['content-type']}`;
  }
  const body = response.body as Record<string, unknown>;
  if (body.status !== status || typeof body.title !== 'string' || typeof body.type !== 'string') {
    return 'not a problem body';
  }
  return undefined;
}

export function expectProblemShape(response: request.Response, status: number): void {
  const fault = problemShapeFault(response, status);
  if (fault !== undefined) throw new Error(`${fault}: ${response.text}`);
}
