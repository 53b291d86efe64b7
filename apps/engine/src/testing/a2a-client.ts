// @a2a-js/sdk's own client for tests of the engine's A2A endpoint: it finds the agent through its card
// and sends a bearer token on every call; and the few readings of tasks the tests share.
import { randomUUID } from 'node:crypto';
import { type Message, SendMessageRequest, type Task } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';

export async function connectA2a(base: string, token: string): Promise<Client> {
  const authFetch: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: authFetch })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: fetch }),
    }),
  );
  // The card path is resolved against the base as a directory.
  return factory.createFromUrl(`${base}/`);
}

/** A user's message: `text` as its one part, or `parts` as given; `extra` sets its contextId or taskId. */
export function userMessage(
  text: string | undefined,
  extra: Record<string, unknown> = {},
  parts?: unknown[],
): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: parts ?? [{ text }], ...extra },
  });
}

export function asTask(result: Message | Task): Task {
  if (!('status' in result)) throw new Error('expected a task, got a message');
  return result;
}

type Parts = { content?: { $case: string; value?: unknown } | undefined }[] | undefined;

/** The text of the parts, joined. */
export const textOf = (parts: Parts): string =>
  (parts ?? []).map((part) => (part.content?.$case === 'text' ? String(part.content.value) : '')).join('');

/** The task's reply: the text of its artifacts. */
export const replyOf = (task: Task): string => task.artifacts.map((artifact) => textOf(artifact.parts)).join('');
