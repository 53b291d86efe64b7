// An MCP server over WebSocket for tests. server-everything has no WebSocket mode and the repository
// has no WebSocket server library, so this speaks just enough RFC 6455 (handshake, text frames, close)
// to carry the SDK's own McpServer, with one tool: `shout`.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { listenOnLoopback } from '@agentplane/testing';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const HANDSHAKE_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const TEXT = 0x1;
const CLOSE = 0x8;

function encodeFrame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const header =
    length < 126
      ? Buffer.from([0x80 | opcode, length])
      : length < 65_536
        ? Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff])
        : Buffer.concat([
            Buffer.from([0x80 | opcode, 127]),
            Buffer.from(new BigUint64Array([BigInt(length)]).buffer).reverse(),
          ]);
  return Buffer.concat([header, payload]);
}

/** Yields complete client frames (always masked) from `buffer`, returning the unread rest. */
function* decodeFrames(state: { buffer: Buffer }): Generator<{ opcode: number; payload: Buffer }> {
  for (;;) {
    const { buffer } = state;
    if (buffer.length < 2) return;
    const opcode = (buffer[0] ?? 0) & 0x0f;
    let length = (buffer[1] ?? 0) & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (buffer.length < 4) return;
      length = buffer.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (buffer.length < 10) return;
      length = Number(buffer.readBigUInt64BE(2));
      offset = 10;
    }
    if (buffer.length < offset + 4 + length) return;
    const mask = buffer.subarray(offset, offset + 4);
    const payload = Buffer.from(buffer.subarray(offset + 4, offset + 4 + length));
    for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] ?? 0) ^ (mask[i % 4] ?? 0);
    state.buffer = buffer.subarray(offset + 4 + length);
    yield { opcode, payload };
  }
}

function createSocketTransport(socket: Socket): Transport {
  const state = { buffer: Buffer.alloc(0) };
  const transport: Transport = {
    start: async () => {
      socket.on('data', (data: Buffer) => {
        state.buffer = Buffer.concat([state.buffer, data]);
        for (const frame of decodeFrames(state)) {
          if (frame.opcode === CLOSE) socket.end(encodeFrame(CLOSE, Buffer.alloc(0)));
          else if (frame.opcode === TEXT)
            transport.onmessage?.(JSON.parse(frame.payload.toString('utf8')) as JSONRPCMessage);
        }
      });
      socket.on('close', () => transport.onclose?.());
    },
    send: async (message) => {
      socket.write(encodeFrame(TEXT, Buffer.from(JSON.stringify(message))));
    },
    close: async () => {
      socket.end(encodeFrame(CLOSE, Buffer.alloc(0)));
    },
  };
  return transport;
}

export type WebSocketMcpServer = {
  url: string;
  /** MCP sessions opened since the start (one per connection), and open now. */
  sessions: () => { opened: number; open: number };
  close: () => Promise<void>;
};

export async function startWebSocketMcpServer(): Promise<WebSocketMcpServer> {
  const sockets = new Set<Socket>();
  let opened = 0;
  const server = createServer((_req, res) => res.writeHead(426).end());
  server.on('upgrade', (req, socket: Socket) => {
    sockets.add(socket);
    opened++;
    socket.once('close', () => sockets.delete(socket));
    const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}${HANDSHAKE_GUID}`).digest('base64');
    socket.write(
      [
        'HTTP/1.1 101 Switching Protocols',
        'Upgrade: websocket',
        'Connection: Upgrade',
        `Sec-WebSocket-Accept: ${accept}`,
        'Sec-WebSocket-Protocol: mcp',
        '',
        '',
      ].join('\r\n'),
    );
    const mcp = new McpServer({ name: 'websocket-test', version: '1.0.0' });
    mcp.registerTool(
      'shout',
      { description: 'Upper-cases text', inputSchema: { text: z.string() } },
      async ({ text }) => ({
        content: [{ type: 'text', text: text.toUpperCase() }],
      }),
    );
    void mcp.connect(createSocketTransport(socket));
  });
  const { port } = await listenOnLoopback(server);
  return {
    url: `ws://127.0.0.1:${port}`,
    sessions: () => ({ opened, open: sockets.size }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
