// The agent as an A2A 1.0 peer: its card, public, and its JSON-RPC endpoint, behind the same bearer
// tokens as /agent/run. Tasks are runs (database mode): without a database the endpoint is a 503.
import { A2A_ENDPOINT_PATH, AGENT_CARD_PATH, ZAgentCard } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import { z } from 'zod';
import type { EngineApi, EngineRouteSpec } from '../http/engine-api.js';
import type { RunStore } from '../runs/recorded-run.js';
import { requireSnapshot, type SnapshotSource } from '../snapshot/use-snapshot.js';
import { handleA2aRequest } from './a2a-endpoint.js';
import { agentCardFor } from './agent-card.js';

const ZJsonRpcRequest = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number().int(), z.null()]).optional(),
    method: z.enum(['SendMessage', 'SendStreamingMessage', 'GetTask', 'ListTasks', 'CancelTask', 'SubscribeToTask']),
    params: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'A2AJsonRpcRequest', description: 'An A2A 1.0 JSON-RPC request (send the header A2A-Version: 1.0)' });

const ZJsonRpcResponse = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]),
    result: z.unknown().optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .meta({ id: 'A2AJsonRpcResponse' });

export const A2A_ROUTES = {
  card: {
    method: 'get',
    path: AGENT_CARD_PATH,
    operationId: 'getAgentCard',
    summary: "The agent's A2A agent card: its JSON-RPC endpoint, skills and accepted issuers",
    tag: 'a2a',
    access: { kind: 'public' },
    responses: { 200: { description: 'The card', schema: ZAgentCard } },
    problems: { 503: 'No config is loaded yet, or the agent was deleted' },
  },
  rpc: {
    method: 'post',
    path: A2A_ENDPOINT_PATH,
    operationId: 'callA2a',
    summary:
      'A2A 1.0 JSON-RPC: SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask (streams answer as SSE)',
    tag: 'a2a',
    access: { kind: 'bearer', body: 'json' },
    // Checked by the SDK's transport, which answers JSON-RPC errors where a 422 would not be one.
    handlerBody: { contentType: 'application/json', schema: ZJsonRpcRequest },
    responses: { 200: { description: 'A JSON-RPC response, or an SSE stream of them', schema: ZJsonRpcResponse } },
    problems: {
      413: 'The body is larger than ENGINE_RUN_INPUT_MAX_BYTES',
      503: "No config is loaded, or the engine has no database (tasks are runs' records)",
    },
  },
} satisfies Record<string, EngineRouteSpec>;

export function addA2aRoutes(
  api: EngineApi,
  source: SnapshotSource,
  options: { store?: RunStore | undefined; keepaliveMs?: number | undefined; publicOrigin: string | undefined },
): void {
  api.add(A2A_ROUTES.card, (_input, req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.json(agentCardFor(requireSnapshot(source), req, options.publicOrigin));
  });
  const { store } = options;
  if (store === undefined) {
    api.add({ ...A2A_ROUTES.rpc, access: { kind: 'bearer' } }, () => {
      throw new AppError('service_unavailable', 'A2A tasks are runs, which need the engine to run with a database.');
    });
    return;
  }
  api.add(A2A_ROUTES.rpc, handleA2aRequest(store, options.publicOrigin, options.keepaliveMs));
}
