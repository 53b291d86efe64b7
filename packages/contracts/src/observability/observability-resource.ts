// Bodies and response of /api/v1/observability.
import type { z } from 'zod';
import { makeResourceBody, makeResourceResponse } from '../common/envelope.js';
import { ZObservabilityConfig } from './observability-config.js';

export const OBSERVABILITY_KEY = 'observability';

const OBSERVABILITY_EXAMPLE = {
  name: 'Langfuse cloud',
  observability: {
    provider: 'LANGFUSE',
    host: 'https://cloud.langfuse.com',
    public_key: 'pk-lf-1234',
    secret_key: 'sk-lf-…',
    capture_content: false,
  },
};

export const ZObservabilityCreate = makeResourceBody(OBSERVABILITY_KEY, ZObservabilityConfig).meta({
  id: 'ObservabilityCreate',
  examples: [OBSERVABILITY_EXAMPLE],
});
export type TObservabilityCreate = z.infer<typeof ZObservabilityCreate>;

// PATCH is a full replacement, so the update body has the create body's shape.
export const ZObservabilityUpdate = makeResourceBody(OBSERVABILITY_KEY, ZObservabilityConfig).meta({
  id: 'ObservabilityUpdate',
  examples: [OBSERVABILITY_EXAMPLE],
});
export type TObservabilityUpdate = z.infer<typeof ZObservabilityUpdate>;

export const ZObservability = makeResourceResponse(OBSERVABILITY_KEY, ZObservabilityConfig).meta({
  id: 'ObservabilityResource',
  description: "A managed trace exporter setting (OTLP, Langfuse or Phoenix) that agents' engines send traces to",
});
export type TObservability = z.infer<typeof ZObservability>;
