import { randomUUID } from 'node:crypto';

/** A signed-in user of the manager's HTTP API, as a frontend would be. */
export class ManagerClient {
  private cookie = '';
  workspaceId = '';

  constructor(readonly baseUrl: string) {}

  static async signUp(baseUrl: string): Promise<ManagerClient> {
    const client = new ManagerClient(baseUrl);
    const response = await fetch(`${baseUrl}/api/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `bench-${randomUUID()}@example.test`, password: 'bench password 123' }),
    });
    if (response.status !== 201) throw new Error(`sign-up failed: ${response.status}`);
    client.cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    client.workspaceId = ((await response.json()) as { default_workspace_id: string }).default_workspace_id;
    return client;
  }

  get headers(): Record<string, string> {
    return { cookie: this.cookie, 'x-workspace-id': this.workspaceId };
  }

  async send<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(this.baseUrl + path, {
      method,
      headers: { ...this.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (response.status === 204 ? undefined : await response.json()) as T;
  }
}

export const whatsapp = (phoneNumberId = '1065550123') => ({
  name: 'bench whatsapp',
  integration: {
    provider: 'WHATSAPP',
    config: { accessToken: 'bench-token', phoneNumberId, verifyToken: 'bench-verify' },
  },
});
