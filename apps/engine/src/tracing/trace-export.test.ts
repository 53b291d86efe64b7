// How each observability provider is reached: the URL, the protocol and the authentication the
// receiver sees, none of the operator's own OTLP headers, the egress policy applied to the endpoint,
// and the last spans sent when the engine stops.
import type { TObservabilityConfigInput } from '@agentplane/contracts';
import {
  makeRunAgentInput,
  type OtlpReceiver,
  overrideEnvironment,
  startOtlpReceiver,
  waitUntil,
} from '@agentplane/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { captureLogs } from '../testing/captured-logs.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { readEventStream } from '../testing/read-event-stream.js';
import { startFileEngine, type TestEngineOptions } from '../testing/test-engine.js';

let receiver: OtlpReceiver;
let engine: RunningEngine | undefined;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});

afterEach(async () => {
  await engine?.shutdown();
  engine = undefined;
  receiver.exports.length = 0;
});

afterAll(async () => {
  await receiver?.close();
});

async function startTracedEngine(observability: TObservabilityConfigInput, options: TestEngineOptions = {}) {
  engine = await startFileEngine(makeLlmEngineConfig({ name: 'exporter', observability }), options);
  return engine;
}

async function runOnce(running: RunningEngine): Promise<void> {
  const response = await fetch(`${running.url}/agent/run`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(makeRunAgentInput('hello')),
  });
  await readEventStream(response);
}

async function firstExport() {
  await waitUntil(() => receiver.exports.length > 0, { what: 'an export to reach the receiver' });
  const [received] = receiver.exports;
  if (received === undefined) throw new Error('no export');
  return received;
}

describe('exporting to each provider', () => {
  it("LANGFUSE: protobuf to the host's OTLP path, with Basic auth from the key pair", async () => {
    const origin = new URL(receiver.url).origin;
    await runOnce(
      await startTracedEngine({
        provider: 'LANGFUSE',
        host: `${origin}/`,
        public_key: 'pk-lf-1',
        secret_key: 'sk-lf-2',
      }),
    );
    const received = await firstExport();
    expect(received.path).toBe('/api/public/otel/v1/traces');
    expect(received.headers.authorization).toBe(`Basic ${Buffer.from('pk-lf-1:sk-lf-2').toString('base64')}`);
    expect(received.headers['content-type']).toBe('application/x-protobuf');
    // Protobuf keeps strings as UTF-8 bytes: the run span's name is there as written.
    expect(received.body.includes('invoke_agent exporter')).toBe(true);
  });

  it('PHOENIX: protobuf to its endpoint, with the API key as a bearer token', async () => {
    await runOnce(await startTracedEngine({ provider: 'PHOENIX', endpoint: receiver.url, api_key: 'phx-key' }));
    const received = await firstExport();
    expect(received.path).toBe('/v1/traces');
    expect(received.headers.authorization).toBe('Bearer phx-key');
  });

  it("OTLP: the config's headers and protocol, and none of the operator's OTEL_EXPORTER_OTLP_HEADERS", async () => {
    const restore = overrideEnvironment({
      OTEL_EXPORTER_OTLP_HEADERS: 'x-operator-token=operator-secret',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-operator-traces=operator-secret',
    });
    try {
      await runOnce(
        await startTracedEngine({
          provider: 'OTLP',
          endpoint: receiver.url,
          protocol: 'http/json',
          headers: { 'x-tenant-key': 'tenant-secret' },
        }),
      );
      const received = await firstExport();
      expect(received.headers['x-tenant-key']).toBe('tenant-secret');
      expect(received.headers['content-type']).toBe('application/json');
      expect(JSON.stringify(received.headers)).not.toContain('operator-secret');
    } finally {
      restore();
    }
  });
});

describe('the egress policy and the end of the engine', () => {
  it('refuses a loopback endpoint when the operator did not allow loopback, and logs why', async () => {
    const logs = captureLogs();
    const running = await startTracedEngine(
      { provider: 'OTLP', endpoint: receiver.url, protocol: 'http/json' },
      { env: { ENGINE_EGRESS_ALLOW: '' }, logDestination: logs.destination },
    );
    await runOnce(running);
    await waitUntil(
      () => logs.lines().some((line) => line.msg === 'could not export traces to the observability backend'),
      { what: 'the failed export to be logged' },
    );
    expect(logs.lines().find((line) => line.msg.includes('refused by the egress policy'))).toMatchObject({
      address: '127.0.0.1',
      range: 'loopback',
    });
    expect(receiver.exports).toEqual([]);
  });

  it('sends the spans still waiting for their batch when the engine stops', async () => {
    const running = await startTracedEngine({ provider: 'OTLP', endpoint: receiver.url, protocol: 'http/json' });
    await runOnce(running);
    // The batch would go out a second after its first span ended; the stop sends it at once instead,
    // and shutdown resolves only after the export did.
    await running.shutdown();
    engine = undefined;
    expect(receiver.spans().map((span) => span.name)).toEqual(
      expect.arrayContaining(['invoke_agent exporter', 'chat echo']),
    );
  });
});
