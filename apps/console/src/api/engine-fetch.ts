// Every request the console sends to an agent's engine goes without cookies: engines take bearer tokens,
// and an engine_url is a tenant's to set. With the browser's cookies, a URL at the manager itself (or at
// any site that trusts them) would make a signed-in admin's browser call it as that admin.
export const fetchFromEngine: typeof fetch = (input, init) => fetch(input, { ...init, credentials: 'omit' });

/** The engine's problem+json answer as an Error saying what it said. */
export async function engineProblem(response: Response): Promise<Error> {
  const problem = (await response.json().catch(() => ({}))) as { detail?: string; title?: string };
  return new Error(problem.detail ?? problem.title ?? `The engine answered ${response.status}`);
}
