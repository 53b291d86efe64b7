// The one API client: openapi-fetch typed by the manager's OpenAPI document (src/generated, made at
// build time), so every path, parameter and body is checked against what the manager serves.
import createClient from 'openapi-fetch';
import type { components, paths } from '../generated/api-schema';
import { activeWorkspaceId } from '../session/active-workspace';
import { ApiProblem } from './api-problem';

export type Schemas = components['schemas'];

export const api = createClient<paths>({ baseUrl: '/', credentials: 'same-origin' });

api.use({
  onRequest({ request }) {
    const workspaceId = activeWorkspaceId();
    if (workspaceId) request.headers.set('x-workspace-id', workspaceId);
    return request;
  },
});

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The body of a successful answer; any other answer throws its problem+json as an ApiProblem. */
export async function expectOk<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw ApiProblem.from(response.status, error);
  return data as T;
}

/** A page of a list, with the total the X-Total-Count header carries. */
export async function expectPage<T>(call: Promise<Answer<T[]>>): Promise<{ items: T[]; total: number }> {
  const answer = await call;
  const items = await expectOk(Promise.resolve(answer));
  return { items, total: Number(answer.response.headers.get('x-total-count') ?? items.length) };
}
