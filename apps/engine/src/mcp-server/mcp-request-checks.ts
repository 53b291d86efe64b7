// What the SDK's transport would refuse with a JSON-RPC error body, refused first as the engine refuses
// everything (problem+json, like every other engine route): a body that is not JSON, an Accept without
// both media types a POST may be answered in, an MCP-Protocol-Version the SDK does not speak, a body
// that is not JSON-RPC, and a batch the transport would not take.
import { AppError } from '@agentplane/server-kit';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import {
  isInitializeRequest,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { Request } from 'express';

export function refuseUnservableMcpRequest(req: Request): void {
  // express.json reads only application/json; the transport would read any other body, unbounded.
  if (req.body === undefined) throw new AppError('unsupported_media_type', 'Send JSON-RPC as application/json.');
  const accept = req.get('accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    throw new AppError('not_acceptable', 'Accept must name both application/json and text/event-stream.');
  }
  const version = req.get('mcp-protocol-version');
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    throw new AppError(
      'bad_request',
      `MCP-Protocol-Version is not one this server speaks (${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}).`,
    );
  }
  const messages: unknown[] = Array.isArray(req.body) ? req.body : [req.body];
  if (messages.length > MAX_BATCH_SIZE) {
    throw new AppError('bad_request', `A batch holds at most ${MAX_BATCH_SIZE} messages.`);
  }
  if (!messages.every((message) => JSONRPCMessageSchema.safeParse(message).success)) {
    throw new AppError('validation_failed', 'The body is not a JSON-RPC 2.0 message, or a batch of them.');
  }
  if (messages.length > 1 && messages.some(isInitializeRequest)) {
    throw new AppError('bad_request', 'An initialize request comes alone, not in a batch.');
  }
}
