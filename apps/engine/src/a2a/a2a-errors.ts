// What the A2A methods throw, as A2A errors: the SDK's transport turns any other error into an
// internal error carrying its message, which could tell a client what only the log should know.
import { A2AError, RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { AppError, type Logger } from '@agentplane/server-kit';

function toA2aError(error: unknown, log: Logger): Error {
  if (error instanceof A2AError) return error;
  if (error instanceof AppError) {
    const detail = [error.message, ...(error.errors ?? []).map((field) => `${field.path}: ${field.message}`)].join(' ');
    switch (error.code) {
      case 'not_found':
        return new TaskNotFoundError(detail);
      case 'bad_request':
      case 'validation_failed':
      case 'payload_too_large':
        return new RequestMalformedError(detail);
      case 'conflict':
      case 'too_many_requests':
        return new UnsupportedOperationError(detail);
      default:
        // A 503's detail is written for clients (no config loaded, the database unreachable).
        if (error.status < 500 || error.code === 'service_unavailable') return new A2AError(detail);
    }
  }
  log.error({ err: error }, 'an A2A request failed');
  return new A2AError('The request failed inside the engine; its log says why.');
}

async function* translateStream<T>(stream: AsyncGenerator<T, void, undefined>, log: Logger) {
  try {
    yield* stream;
  } catch (error) {
    throw toA2aError(error, log);
  }
}

/**
 * The handler whose errors are all A2A errors; `onCall` is told when a method is called, which
 * tells a request whose params the transport could not even decode from one a method refused.
 */
export function translateErrors(handler: A2ARequestHandler, log: Logger, onCall: () => void): A2ARequestHandler {
  return new Proxy(handler, {
    get(target, key, receiver) {
      const method = Reflect.get(target, key, receiver) as unknown;
      if (typeof method !== 'function') return method;
      return (...args: unknown[]) => {
        onCall();
        const result = (method as (...a: unknown[]) => unknown).apply(target, args);
        if (result instanceof Promise) return result.catch((error: unknown) => Promise.reject(toA2aError(error, log)));
        return translateStream(result as AsyncGenerator<unknown, void, undefined>, log);
      };
    },
  });
}
