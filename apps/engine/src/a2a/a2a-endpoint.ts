// POST {agent base}/a2a: one A2A 1.0 JSON-RPC request, decoded and dispatched by the SDK's
// JsonRpcTransportHandler to the methods over our runs (a2a-request-handler.ts). A plain answer is
// JSON; a stream (SendStreamingMessage, SubscribeToTask) is SSE, one JSON-RPC response per event, on
// the engine's own event stream (keepalives, writes that wait for a slow client). A client leaving
// stops the following, never the task: it can subscribe again.
import { A2A_VERSION_HEADER, AgentCard } from '@a2a-js/sdk';
import { A2A_ERROR_CODE } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler, ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import type { Request, Response } from 'express';
import { openEventStream } from '../runs/event-stream.js';
import type { RunStore } from '../runs/recorded-run.js';
import { getSnapshot } from '../snapshot/use-snapshot.js';
import { callerOf } from '../threads/thread-scope.js';
import { translateErrors } from './a2a-errors.js';
import { createA2aRequestHandler } from './a2a-request-handler.js';
import { agentCardFor } from './agent-card.js';

type JsonRpcAnswer = { jsonrpc: '2.0'; id: unknown; error?: { code: number; message: string } };

const requestIdOf = (body: unknown): unknown => {
  const id = (body as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
};

const isStream = (value: unknown): value is AsyncGenerator<unknown, void, undefined> =>
  typeof (value as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === 'function';

const errorAnswer = (id: unknown, error: unknown) => ({
  jsonrpc: '2.0',
  id,
  error: JsonRpcTransportHandler.mapToJSONRPCError(error),
});

async function sendStream(
  req: Request,
  res: Response,
  events: AsyncGenerator<unknown, void, undefined>,
  keepaliveMs: number | undefined,
): Promise<void> {
  const id = requestIdOf(req.body);
  let first: IteratorResult<unknown, void>;
  try {
    first = await events.next();
  } catch (error) {
    // An error before the first event is a plain JSON-RPC error, as the SDK's own transport answers it.
    res.json(errorAnswer(id, error));
    return;
  }
  const stream = openEventStream(req, res, keepaliveMs, { sseOnly: true });
  res.on('close', () => void events.return());
  let count = 0;
  const send = (answer: unknown) => stream.sendData(String(++count), JSON.stringify(answer));
  try {
    if (first.done === false) await send(first.value);
    for await (const event of events) await send(event);
  } catch (error) {
    await send(errorAnswer(id, error));
  } finally {
    stream.end();
  }
}

export function handleA2aRequest(store: RunStore, publicOrigin: string | undefined, keepaliveMs?: number) {
  return async (_input: unknown, req: Request, res: Response): Promise<void> => {
    const snapshot = getSnapshot(res);
    const card = AgentCard.fromJSON(agentCardFor(snapshot, req, publicOrigin));
    const context = new ServerCallContext({ requestedVersion: req.get(A2A_VERSION_HEADER) || undefined });
    try {
      validateVersion(context.requestedVersion, card, 'JSONRPC');
    } catch (error) {
      res.json(errorAnswer(requestIdOf(req.body), error));
      return;
    }
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const call = { store, snapshot, card, caller: callerOf(res.locals.claims), signal: gone.signal, log: req.log };
    let called = false;
    const handler = translateErrors(createA2aRequestHandler(call), req.log, () => {
      called = true;
    });
    const answer = await new JsonRpcTransportHandler(handler).handle(req.body, context);
    if (isStream(answer)) {
      await sendStream(req, res, answer, keepaliveMs);
      return;
    }
    const { error } = answer as JsonRpcAnswer;
    // No method was called: the transport could not decode the params, which is the client's fault.
    if (error?.code === A2A_ERROR_CODE.INTERNAL_ERROR && !called) {
      res.json({ ...answer, error: { code: A2A_ERROR_CODE.INVALID_PARAMS, message: 'Invalid method parameters.' } });
      return;
    }
    res.json(answer);
  };
}
