import type { z } from 'zod';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment once at start-up; a missing or bad variable stops the app with its name. */
export function parseEnv<Schema extends z.ZodType>(
  schema: Schema,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<Schema> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(env)'}: ${issue.message}`);
    throw new ConfigError(`Invalid environment:\n${lines.join('\n')}`);
  }
  return result.data;
}
