// A form whose state is the page's own (not react-hook-form's, as useApiForm has it) and whose fields are
// its body's top-level keys: the body is checked with a contracts schema before it is sent, and each
// error, from the schema or the API's problem, shows on the field its path starts with, said with the
// rest of its path. What no field shows goes to the ProblemAlert above the form.
import { type FormEvent, useState } from 'react';
import type { z } from 'zod';
import { type ApiProblem, problemOf } from '../api/api-problem';

export type FieldErrorMap = Record<string, string>;

function add(errors: FieldErrorMap, path: string, message: string) {
  const [field = '', ...rest] = path.split(/[.[\]]+/).filter(Boolean);
  const said = rest.length > 0 ? `${rest.join('.')}: ${message}` : message;
  errors[field] = errors[field] ? `${errors[field]}; ${said}` : said;
}

function errorsOfIssues(issues: readonly z.core.$ZodIssue[]): FieldErrorMap {
  const errors: FieldErrorMap = {};
  for (const issue of issues) add(errors, issue.path.map(String).join('.'), issue.message);
  return errors;
}

function errorsOfProblem(problem: ApiProblem | undefined): FieldErrorMap {
  const errors: FieldErrorMap = {};
  for (const error of problem?.errors ?? []) add(errors, error.path, error.message);
  return errors;
}

/**
 * The form's submit: `body()` gathers the fields, `schema` checks them, `send` gets the parsed body
 * (typed as the API's, `B`, which the schema's output matches field for field).
 */
export function useBodyForm<B>(options: {
  schema: z.ZodType;
  body: () => unknown;
  send: (body: B) => Promise<unknown>;
}) {
  const [errors, setErrors] = useState<FieldErrorMap>({});
  const [problem, setProblem] = useState<ApiProblem>();
  const [busy, setBusy] = useState(false);
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(undefined);
    const parsed = options.schema.safeParse(options.body());
    if (!parsed.success) return setErrors(errorsOfIssues(parsed.error.issues));
    setErrors({});
    setBusy(true);
    try {
      await options.send(parsed.data as B);
    } catch (error) {
      const found = problemOf(error);
      setErrors(errorsOfProblem(found));
      setProblem(found);
    } finally {
      setBusy(false);
    }
  };
  return { errors, problem, busy, onSubmit: (event: FormEvent) => void onSubmit(event) };
}
