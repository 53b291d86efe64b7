// The engine's span export thread when it stops without being asked to (a crash, its heap bound): the
// next one is started and the pipelines still open go on in it, to the same backend. The real thread
// exports to a real OTLP receiver; the test only keeps hold of the threads it starts, to end one.
import type { Worker } from 'node:worker_threads';
import { createLogger, createSpanPipeline } from '@agentplane/server-kit';
import { type OtlpReceiver, startOtlpReceiver, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { captureLogs } from '../testing/captured-logs.js';
import { createLoopbackEgress } from '../testing/loopback-egress.js';
import { createSpanExportThread, startSpanExportWorker } from './export-thread.js';

let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});

afterAll(async () => {
  await receiver?.close();
});

it('starts the thread again after it stopped, and the open pipelines export through the new one', async () => {
  const logs = captureLogs();
  const workers: Worker[] = [];
  const thread = createSpanExportThread({
    egress: createLoopbackEgress(),
    logger: createLogger({ name: 'export-thread-test', destination: logs.destination }),
    startWorker: (data) => {
      const worker = startSpanExportWorker(data);
      workers.push(worker);
      return worker;
    },
    restartDelayMs: 10,
  });
  const processor = thread.open({
    exporter: { url: receiver.url, protocol: 'http/json', headers: {} },
    serviceName: 'restart-test',
    attributes: {},
  });
  const pipeline = createSpanPipeline({ serviceName: 'restart-test', processor });
  try {
    pipeline.tracer.startSpan('before the stop').end();
    await processor.forceFlush();
    expect(receiver.spans().map((span) => span.name)).toEqual(['before the stop']);

    await workers[0]?.terminate();
    await waitUntil(() => workers.length === 2, { what: 'a second export thread' });
    pipeline.tracer.startSpan('after the stop').end();
    await processor.forceFlush();
    expect(receiver.spans().map((span) => span.name)).toEqual(['before the stop', 'after the stop']);
    const stopped = logs.lines().find((line) => line.msg.startsWith('the span export thread stopped'));
    expect(stopped).toMatchObject({ restart_in_ms: 10, pipelines: 1 });
  } finally {
    await pipeline.shutdown();
    await thread.close();
  }
  // Closed on purpose, it is not started again.
  expect(workers).toHaveLength(2);
});
