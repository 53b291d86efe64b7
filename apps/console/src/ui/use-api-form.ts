// A react-hook-form form validated by a contracts schema (the rules the server applies), whose submit
// calls the API and puts a problem's errors[] on the fields they name.
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { type DefaultValues, type FieldValues, type Path, type Resolver, useForm } from 'react-hook-form';
import type { z } from 'zod';
import { type ApiProblem, fieldNameOf, problemOf } from '../api/api-problem';

export function useApiForm<S extends z.ZodType<FieldValues, FieldValues>>(options: {
  schema: S;
  defaultValues?: DefaultValues<z.input<S>>;
  submit: (body: z.output<S>) => Promise<unknown>;
  disabled?: boolean;
}) {
  const form = useForm<z.input<S>, unknown, z.output<S>>({
    // The generic schema defeats the resolver's inference; its input and output are S's by construction.
    resolver: zodResolver(options.schema as never) as unknown as Resolver<z.input<S>, unknown, z.output<S>>,
    ...(options.defaultValues ? { defaultValues: options.defaultValues } : {}),
    disabled: options.disabled ?? false,
  });
  const [problem, setProblem] = useState<ApiProblem | undefined>();
  const onSubmit = form.handleSubmit(async (body) => {
    setProblem(undefined);
    try {
      await options.submit(body);
    } catch (error) {
      const found = problemOf(error);
      for (const fieldError of found?.errors ?? []) {
        form.setError(fieldNameOf(fieldError.path) as Path<z.input<S>>, {
          type: 'server',
          message: fieldError.message,
        });
      }
      setProblem(found);
    }
  });
  return { form, problem, onSubmit };
}
