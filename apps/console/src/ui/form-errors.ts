// Errors of a form whose fields are its body's top-level keys: each error, from the contracts' schema
// or the API's problem, on the field its path starts with, said with the rest of its path.
import type { z } from 'zod';
import type { ApiProblem } from '../api/api-problem';

export type FieldErrorMap = Record<string, string>;

function add(errors: FieldErrorMap, path: string, message: string) {
  const [field = '', ...rest] = path.split(/[.[\]]+/).filter(Boolean);
  const said = rest.length > 0 ? `${rest.join('.')}: ${message}` : message;
  errors[field] = errors[field] ? `${errors[field]}; ${said}` : said;
}

export function errorsOfIssues(issues: readonly z.core.$ZodIssue[]): FieldErrorMap {
  const errors: FieldErrorMap = {};
  for (const issue of issues) add(errors, issue.path.map(String).join('.'), issue.message);
  return errors;
}

export function errorsOfProblem(problem: ApiProblem | undefined): FieldErrorMap {
  const errors: FieldErrorMap = {};
  for (const error of problem?.errors ?? []) add(errors, error.path, error.message);
  return errors;
}
