// Turns zod issues into the `errors` list of a problem body, with paths a client can read
// (integration.config.apiVersion, mcp_server.args[0], mcp_server.headers["X-Api-Key"]).
import type { z } from 'zod';
import type { TProblemFieldError } from './problem.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function formatIssuePath(path: readonly PropertyKey[]): string {
  let formatted = '';
  for (const segment of path) {
    if (typeof segment === 'number') {
      formatted += `[${segment}]`;
    } else if (typeof segment === 'string' && IDENTIFIER.test(segment)) {
      formatted += formatted === '' ? segment : `.${segment}`;
    } else {
      formatted += `[${JSON.stringify(String(segment))}]`;
    }
  }
  return formatted;
}

export function formatZodIssues(error: Pick<z.ZodError, 'issues'>): TProblemFieldError[] {
  return error.issues.flatMap((issue) => {
    // zod reports all unknown keys of one object in a single issue located at the object;
    // clients need one entry per field, located at the field itself.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: formatIssuePath([...issue.path, key]),
        message: `Unknown field "${key}"`,
      }));
    }
    return [{ path: formatIssuePath(issue.path), message: issue.message }];
  });
}
