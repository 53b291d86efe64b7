// Bodies and response of /api/v1/sso.
import type { z } from 'zod';
import { makeResourceBody, makeResourceResponse } from '../common/envelope.js';
import { ZSsoConfig } from './sso-config.js';

export const SSO_KEY = 'sso';

export const ZSsoCreate = makeResourceBody(SSO_KEY, ZSsoConfig).meta({ id: 'SsoCreate' });
export type TSsoCreate = z.infer<typeof ZSsoCreate>;

// PATCH is a full replacement, so the update body has the create body's shape.
export const ZSsoUpdate = makeResourceBody(SSO_KEY, ZSsoConfig).meta({ id: 'SsoUpdate' });

export const ZSso = makeResourceResponse(SSO_KEY, ZSsoConfig).meta({
  id: 'SsoResource',
  description: 'A managed OIDC setting',
});
export type TSso = z.infer<typeof ZSso>;
