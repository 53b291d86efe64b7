import type { TEngineIntegration } from '@agentplane/contracts';
import type { IntegrationOf } from '../channels/channel-adapter.js';

export type WhatsAppIntegration = IntegrationOf<'WHATSAPP'>;

export const isWhatsApp = (integration: TEngineIntegration): integration is WhatsAppIntegration =>
  integration.provider === 'WHATSAPP';
