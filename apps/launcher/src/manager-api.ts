// The launcher talks to the manager like any frontend: over its HTTP API, with a session cookie.
export class ManagerApi {
  private cookie = '';

  constructor(readonly baseUrl: string) {}

  async request<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${this.baseUrl}/api/v1${path}`, {
      method,
      headers: {
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie?.startsWith('sid=')) this.cookie = setCookie.split(';')[0] ?? '';
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  /** The `iss` of the tokens the manager mints, as engines must be told it (ENGINE_MANAGER_ISSUER). */
  async issuer(): Promise<string> {
    const response = await fetch(`${this.baseUrl}/.well-known/openid-configuration`);
    if (!response.ok) throw new Error(`the manager's OIDC discovery answered ${response.status}`);
    return ((await response.json()) as { issuer: string }).issuer;
  }

  /** Like request, but anything other than the expected status is an error naming the call. */
  async expect<T>(status: number, method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.request<T>(method, path, body);
    if (response.status !== status) {
      throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(response.body)}`);
    }
    return response.body;
  }
}

export async function waitUntilHealthy(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not become healthy in time`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
