/** The body of a WhatsApp integration the benchmarks create and patch (a new phone number id per patch). */
export const whatsapp = (phoneNumberId = '1065550123') => ({
  name: 'bench whatsapp',
  integration: {
    provider: 'WHATSAPP',
    config: { accessToken: 'bench-token', phoneNumberId, verifyToken: 'bench-verify' },
  },
});
