// Bodies and response of /api/v1/sso.
import type { z } from 'zod';
import { makeResourceBody, makeResourceResponse } from '../common/envelope.js';
import { ZSsoConfig } from './sso-config.js';

export const SSO_KEY = 'sso';

const SSO_EXAMPLE = {
  name: 'Company login',
  sso: {
    enabled: true,
    issuer: 'https://login.example.com/realms/acme',
    audience: 'agents',
    algorithms: ['RS256'],
    allowedDomains: ['example.com'],
  },
};

export const ZSsoCreate = makeResourceBody(SSO_KEY, ZSsoConfig).meta({ id: 'SsoCreate', examples: [SSO_EXAMPLE] });
export type TSsoCreate = z.infer<typeof ZSsoCreate>;

// PATCH is a full replacement, so the update body has the create body's shape.
export const ZSsoUpdate = makeResourceBody(SSO_KEY, ZSsoConfig).meta({ id: 'SsoUpdate', examples: [SSO_EXAMPLE] });

export const ZSso = makeResourceResponse(SSO_KEY, ZSsoConfig).meta({
  id: 'SsoResource',
  description: 'A managed OIDC setting',
});
export type TSso = z.infer<typeof ZSso>;
