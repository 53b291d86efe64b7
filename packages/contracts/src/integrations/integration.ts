// Bodies and response of /api/v1/integrations.
import type { z } from 'zod';
import { makeResourceBody, makeResourceResponse } from '../common/envelope.js';
import { ZIntegrationConfig } from './integration-config.js';

export const INTEGRATION_KEY = 'integration';

const INTEGRATION_EXAMPLE = {
  name: 'Support line',
  integration: {
    provider: 'WHATSAPP',
    enabled: true,
    config: {
      accessToken: 'EAAG…',
      phoneNumberId: '106555012345678',
      verifyToken: 'a-long-random-string',
      apiVersion: 'v21.0',
    },
  },
};

export const ZIntegrationCreate = makeResourceBody(INTEGRATION_KEY, ZIntegrationConfig).meta({
  id: 'IntegrationCreate',
  examples: [INTEGRATION_EXAMPLE],
});
export type TIntegrationCreate = z.infer<typeof ZIntegrationCreate>;
export type TIntegrationCreateInput = z.input<typeof ZIntegrationCreate>;

// PATCH is a full replacement, so the update body has the create body's shape.
export const ZIntegrationUpdate = makeResourceBody(INTEGRATION_KEY, ZIntegrationConfig).meta({
  id: 'IntegrationUpdate',
  examples: [INTEGRATION_EXAMPLE],
});
export type TIntegrationUpdate = z.infer<typeof ZIntegrationUpdate>;

export const ZIntegration = makeResourceResponse(INTEGRATION_KEY, ZIntegrationConfig).meta({
  id: 'Integration',
  description: 'A managed integration',
});
export type TIntegration = z.infer<typeof ZIntegration>;
