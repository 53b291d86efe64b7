// Talks to the manager like any frontend: over its HTTP API, with a session cookie. The launcher uses it
// at run time (so it lives in a runtime package, not a testing one), and so do the bench and the tests.
import { randomUUID } from 'node:crypto';
import type { TEngineCredentials } from '@agentplane/contracts';

/** `sid`, or `__Host-sid` when the manager's cookie is Secure. */
const SESSION_COOKIE = /^(__Host-)?sid=/;

export class ManagerClient {
  private cookie = '';
  /** Sent as `x-workspace-id` when set; without it the manager uses the user's default workspace. */
  workspaceId = '';

  constructor(readonly baseUrl: string) {}

  /** A client signed in as a new user (a fresh email unless given), in that user's personal workspace. */
  static async signUp(
    baseUrl: string,
    user: { email?: string; password?: string; name?: string } = {},
  ): Promise<ManagerClient> {
    const client = new ManagerClient(baseUrl);
    const me = await client.expect<{ default_workspace_id: string }>(201, 'POST', '/auth/signup', {
      email: user.email ?? `user-${randomUUID()}@example.test`,
      password: user.password ?? 'a password of the test user',
      ...(user.name === undefined ? {} : { name: user.name }),
    });
    client.workspaceId = me.default_workspace_id;
    return client;
  }

  /** The headers that make a request this client's (for load generators that send their own). */
  get headers(): Record<string, string> {
    return {
      ...(this.cookie ? { cookie: this.cookie } : {}),
      ...(this.workspaceId ? { 'x-workspace-id': this.workspaceId } : {}),
    };
  }

  /** Calls `/api/v1{path}`; keeps the session cookie the manager sets. */
  async request<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${this.baseUrl}/api/v1${path}`, {
      method,
      headers: { ...this.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const session = response.headers.getSetCookie().find((cookie) => SESSION_COOKIE.test(cookie));
    if (session) this.cookie = session.split(';')[0] ?? '';
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  /** Like request, but anything other than the expected status is an error naming the call. */
  async expect<T>(status: number, method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.request<T>(method, path, body);
    if (response.status !== status) {
      throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
    }
    return response.body;
  }

  /** The `iss` of the tokens the manager mints, as engines must be told it (ENGINE_MANAGER_ISSUER). */
  async issuer(): Promise<string> {
    const response = await fetch(`${this.baseUrl}/.well-known/openid-configuration`);
    if (!response.ok) throw new Error(`the manager's OIDC discovery answered ${response.status}`);
    return ((await response.json()) as { issuer: string }).issuer;
  }

  /** The agent's engine credentials; each call rotates its role's password, so its engines share one set. */
  issueEngineCredentials(agentId: string): Promise<TEngineCredentials> {
    return this.expect<TEngineCredentials>(201, 'POST', `/agents/${agentId}/engine-credentials`);
  }
}
