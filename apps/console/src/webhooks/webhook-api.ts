// The outgoing webhook calls the pages share, with the query keys they are cached under: an endpoint's
// deliveries under its own key, so a replay or a test event reaches its log.
import { api, expectOk, expectPage, type Schemas } from '../api/api-client';

export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type WebhookEndpointBody = Schemas['WebhookEndpointInput'];
export type WebhookDelivery = Schemas['WebhookDelivery'];

export const WEBHOOKS_KEY = 'webhooks';

export const webhookKeys = {
  list: () => [WEBHOOKS_KEY, 'list'] as const,
  one: (id: string) => [WEBHOOKS_KEY, id] as const,
  deliveries: (id: string) => [WEBHOOKS_KEY, id, 'deliveries'] as const,
};

const byId = (id: string) => ({ params: { path: { id } } });

export function listEndpoints(offset: number, limit: number) {
  return expectPage(
    api.GET('/api/v1/webhooks', { params: { query: { limit: String(limit), offset: String(offset) } } }),
  );
}

export function getEndpoint(id: string) {
  return expectOk(api.GET('/api/v1/webhooks/{id}', byId(id)));
}

export function createEndpoint(body: WebhookEndpointBody) {
  return expectOk(api.POST('/api/v1/webhooks', { body }));
}

export function replaceEndpoint(id: string, body: WebhookEndpointBody) {
  return expectOk(api.PATCH('/api/v1/webhooks/{id}', { ...byId(id), body }));
}

export function deleteEndpoint(id: string) {
  return expectOk(api.DELETE('/api/v1/webhooks/{id}', byId(id)));
}

export function rotateSecret(id: string, previousValidSeconds: number) {
  return expectOk(
    api.POST('/api/v1/webhooks/{id}/rotate-secret', {
      ...byId(id),
      body: { previous_valid_seconds: previousValidSeconds },
    }),
  );
}

export function listDeliveries(id: string, offset: number, limit: number) {
  return expectPage(
    api.GET('/api/v1/webhooks/{id}/deliveries', {
      params: { path: { id }, query: { limit: String(limit), offset: String(offset) } },
    }),
  );
}

export function replayDelivery(id: string, deliveryId: string) {
  return expectOk(
    api.POST('/api/v1/webhooks/{id}/deliveries/{deliveryId}/replay', { params: { path: { id, deliveryId } } }),
  );
}

export function sendTestEvent(id: string) {
  return expectOk(api.POST('/api/v1/webhooks/{id}/test', byId(id)));
}
