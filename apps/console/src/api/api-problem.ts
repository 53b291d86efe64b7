// The manager's problem+json errors, and where a form shows them: each errors[] entry on the field it
// names, the rest above the form.
import type { TProblem, TProblemFieldError } from '@agentplane/contracts';

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string | undefined,
    readonly errors: TProblemFieldError[],
  ) {
    super(detail ?? title);
  }

  static from(status: number, body: unknown): ApiProblem {
    const problem = (typeof body === 'object' && body !== null ? body : {}) as Partial<TProblem>;
    return new ApiProblem(status, problem.title ?? `Request failed (${status})`, problem.detail, problem.errors ?? []);
  }
}

/** `mcp_server.args[0]` (the API's paths) as react-hook-form names it: `mcp_server.args.0`. */
export function fieldNameOf(path: string): string {
  return path.replace(/\[(\d+)\]/g, '.$1');
}

export function problemOf(error: unknown): ApiProblem | undefined {
  if (error instanceof ApiProblem) return error;
  if (error instanceof Error) return new ApiProblem(0, 'The request failed', error.message, []);
  return undefined;
}
