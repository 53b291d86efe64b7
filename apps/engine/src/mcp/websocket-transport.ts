// The MCP WebSocket client transport over a WebSocket the egress policy opens. The SDK's own
// WebSocketClientTransport constructs the global WebSocket itself, which no policy can reach into.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { WebSocket } from 'undici';

const SUBPROTOCOL = 'mcp';

export class PolicedWebSocketTransport implements Transport {
  private socket: WebSocket | undefined;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(
    private readonly url: URL,
    private readonly open: (url: URL, protocols: string[]) => WebSocket,
  ) {}

  start(): Promise<void> {
    if (this.socket !== undefined) throw new Error('The WebSocket transport was already started');
    const socket = this.open(this.url, [SUBPROTOCOL]);
    this.socket = socket;
    return new Promise((resolve, reject) => {
      socket.onerror = (event) => {
        const error = event.error instanceof Error ? event.error : new Error('WebSocket error');
        reject(error);
        this.onerror?.(error);
      };
      socket.onopen = () => resolve();
      socket.onclose = () => this.onclose?.();
      socket.onmessage = (event) => {
        let message: JSONRPCMessage;
        try {
          message = JSONRPCMessageSchema.parse(JSON.parse(String(event.data)));
        } catch (error) {
          this.onerror?.(error as Error);
          return;
        }
        this.onmessage?.(message);
      };
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.socket === undefined) throw new Error('Not connected');
    this.socket.send(JSON.stringify(message));
  }

  async close(): Promise<void> {
    this.socket?.close();
  }
}
