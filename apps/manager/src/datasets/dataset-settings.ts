// The operator's dataset limits: the manager env's fields, their reference entries, and the typed
// settings the routes take. An item's own size is a contract constant (DATASET_ITEM_MAX_BYTES).
import type { EnvDocs } from '@agentplane/server-kit';
import { z } from 'zod';

export const DATASET_ENV_FIELDS = {
  MAX_DATASETS_PER_WORKSPACE: z.coerce.number().int().min(1).max(100_000).default(100),
  MAX_DATASET_ITEMS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  DATASET_HISTORY_MAX_ROWS: z.coerce.number().int().min(1).max(10_000_000).default(100_000),
  DATASET_IMPORT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(16 * 1024 * 1024),
};

type DatasetEnv = { [K in keyof typeof DATASET_ENV_FIELDS]: z.infer<(typeof DATASET_ENV_FIELDS)[K]> };

export type DatasetLimits = {
  maxPerWorkspace: number;
  maxItems: number;
  maxHistoryRows: number;
  importMaxBytes: number;
};

export function readDatasetLimits(env: DatasetEnv): DatasetLimits {
  return {
    maxPerWorkspace: env.MAX_DATASETS_PER_WORKSPACE,
    maxItems: env.MAX_DATASET_ITEMS,
    maxHistoryRows: env.DATASET_HISTORY_MAX_ROWS,
    importMaxBytes: env.DATASET_IMPORT_MAX_BYTES,
  };
}

const SEE = 'See [Evaluations](/guide/evaluations)';

export const DATASET_ENV_DOCS: EnvDocs<typeof DATASET_ENV_FIELDS> = {
  MAX_DATASETS_PER_WORKSPACE: {
    description: `The most datasets one workspace may have; a create past it is a **409** problem+json (\`urn:agentplane:problem:datasets-per-workspace\`). ${SEE}`,
  },
  MAX_DATASET_ITEMS: {
    description: `The most items one version of a dataset may hold; a change past it is a **409** (\`urn:agentplane:problem:dataset-items\`). ${SEE}`,
  },
  DATASET_HISTORY_MAX_ROWS: {
    description: `The most item revisions one dataset keeps over all its versions (every version stays readable, so each added or edited item is kept); a change past it is a **409** (\`urn:agentplane:problem:dataset-history\`): export the dataset into a new one. ${SEE}`,
  },
  DATASET_IMPORT_MAX_BYTES: {
    description: `The largest JSONL body a dataset import accepts, in bytes (**413** above it). ${SEE}`,
  },
};
