// What the configuration reference says of each environment variable. A service keeps these next to its
// zod schema, keyed by the schema's own fields, so a variable cannot be added without them: the type
// below makes a missing or extra entry a compile error, and the docs' generator and its test read both.
import type { z } from 'zod';

export type EnvVarDoc = {
  /** What the variable does, in Markdown. */
  description: string;
  /**
   * What applies when it is unset, when the schema's own default does not say it all (a computed
   * value, a launcher's own); it must then quote the schema's default. Unset: the schema's default,
   * else "required" or "none".
   */
  default?: string;
};

/** One entry per field of an environment schema's shape, and no other. */
export type EnvDocs<Shape> = { readonly [Name in keyof Shape]-?: EnvVarDoc };

/** A service's environment, as the configuration reference renders it. */
export type DocumentedEnv = {
  service: string;
  schema: z.ZodObject;
  docs: Readonly<Record<string, EnvVarDoc>>;
};
