// One non-streaming call of an OpenAI-compatible chat-completions endpoint a tenant chose, made by the
// manager: through the connect-time egress policy (every address checked after DNS), with no redirect
// followed, within a timeout, and reading at most a bounded answer. Only the answer's text and token
// counts are kept; a failure is described in words safe to show the tenant (never the server's body).
import type { EgressPolicy } from '@agentplane/server-kit';
import { z } from 'zod';
import { describeFetchFailure } from '../../egress/describe-fetch-failure.js';

/** The most of a response body read: a judge's verdict is small, a server pouring out more is no judge. */
export const CHAT_RESPONSE_MAX_BYTES = 256 * 1024;
const USER_AGENT = 'agentplane-scorers/1';

export class ChatCompletionError extends Error {
  override name = 'ChatCompletionError';
}

export type ChatCompletionRequest = {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  messages: { role: 'system' | 'user'; content: string }[];
};

export type ChatCompletion = { content: string; usage: { input: number; output: number } | undefined };

const ZCompletion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }) })).min(1),
  usage: z.object({ prompt_tokens: z.number().int().min(0), completion_tokens: z.number().int().min(0) }).optional(),
});

/** `{baseUrl}/chat/completions`, keeping the base URL's query (a key some servers take there). */
export function chatCompletionsUrl(baseUrl: string): URL {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
  return url;
}

async function readCapped(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const parts: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > CHAT_RESPONSE_MAX_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new ChatCompletionError(`the server answered with more than ${CHAT_RESPONSE_MAX_BYTES} bytes`);
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString('utf8');
}

export async function requestChatCompletion(
  egress: EgressPolicy,
  request: ChatCompletionRequest,
  { timeoutMs }: { timeoutMs: number },
): Promise<ChatCompletion> {
  let text: string;
  try {
    const response = await egress.fetch(chatCompletionsUrl(request.baseUrl), {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        ...(request.apiKey === undefined ? {} : { authorization: `Bearer ${request.apiKey}` }),
      },
      body: JSON.stringify({ model: request.model, messages: request.messages, temperature: 0, stream: false }),
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new ChatCompletionError(`the server answered HTTP ${response.status}`);
    }
    text = await readCapped(response);
  } catch (error) {
    if (error instanceof ChatCompletionError) throw error;
    throw new ChatCompletionError(describeFetchFailure(error, timeoutMs), { cause: error });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ChatCompletionError('the server did not answer with JSON');
  }
  const completion = ZCompletion.safeParse(body);
  if (!completion.success) throw new ChatCompletionError('the server did not answer with a chat completion');
  const { choices, usage } = completion.data;
  return {
    content: choices[0]?.message.content ?? '',
    usage: usage === undefined ? undefined : { input: usage.prompt_tokens, output: usage.completion_tokens },
  };
}
