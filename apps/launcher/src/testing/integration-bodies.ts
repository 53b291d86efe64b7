// Request bodies for the cross-service tests.

/** A WhatsApp integration with an app secret (one without makes an engine's /health degraded). */
export function whatsappIntegration(phoneNumberId: string) {
  return {
    name: 'support line',
    integration: {
      provider: 'WHATSAPP',
      config: { accessToken: 'EAAG-test-token', phoneNumberId, verifyToken: 'verify', appSecret: 'test-app-secret' },
    },
  };
}
