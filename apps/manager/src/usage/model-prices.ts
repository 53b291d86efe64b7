// The price table that turns a run's tokens into money: USD per million input and output tokens, per
// "<provider>/<name>" as the engine records a run's model. The defaults ship in model-prices.json;
// MODEL_PRICES_FILE names an operator's own file. A file that does not parse stops the manager at
// start, since reports priced from half a table would be wrong without saying so.
import { readFileSync } from 'node:fs';
import { ConfigError } from '@agentplane/server-kit';
import { z } from 'zod';

// As the engine records a run's model: "<provider>/<name>" of the agent's model config.
const MODEL_KEY = /^[^/\s]+\/\S+$/;
const ZPricePerMillion = z.number().min(0).max(1_000_000);

export const ZModelPrices = z.strictObject({
  /** Where the figures came from and when: for the operator, never read by the code. */
  source: z.string().optional(),
  models: z
    .record(
      z.string(),
      z.strictObject({ input_per_million_usd: ZPricePerMillion, output_per_million_usd: ZPricePerMillion }),
    )
    // Checked here rather than as the record's key schema, whose error would not say what a key must be.
    .superRefine((models, ctx) => {
      for (const key of Object.keys(models).filter((name) => !MODEL_KEY.test(name))) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: 'must be "<provider>/<model name>", e.g. "openai/gpt-4o"',
        });
      }
    }),
});
export type ModelPrices = z.infer<typeof ZModelPrices>['models'];

// Beside package.json, so the same path holds from src/ (tests) and dist/ (the built manager).
export const DEFAULT_MODEL_PRICES_FILE = new URL('../../model-prices.json', import.meta.url).pathname;

export function loadModelPrices(file: string): ModelPrices {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`MODEL_PRICES_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`MODEL_PRICES_FILE: ${file} is not JSON (${(error as Error).message})`);
  }
  const result = ZModelPrices.safeParse(json);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(file)'}: ${issue.message}`);
    throw new ConfigError(`MODEL_PRICES_FILE: ${file} is not a valid price table:\n${lines.join('\n')}`);
  }
  return result.data.models;
}
