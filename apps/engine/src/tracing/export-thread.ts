// The engine's one span export thread, started with the first config that traces and kept for the
// next ones: loading the exporter takes a thread over half a second of CPU, too much to pay at every
// config change. Each traced config gets a pipeline of its own in it (its exporter, its batch), on a
// channel of its own, shut down with the config's snapshot.
import { createRequire } from 'node:module';
import { MessageChannel, Worker } from 'node:worker_threads';
import {
  createThreadSpanProcessor,
  formatEgressAllowList,
  type Logger,
  type SpanProcessor,
} from '@agentplane/server-kit';
import { type EgressPolicy, EgressRefusedError } from '../egress/egress-policy.js';
import type { ExportPipelineData, ExportThreadData, ExportThreadReport } from './export-thread-protocol.js';

// The built entry, under tests too: a thread loads its files as Node does, without the test runner's
// TypeScript transform (package.json exports it for this).
const ENTRY = createRequire(import.meta.url).resolve('@agentplane/engine/span-export-worker');
// Room for several full batch queues (2,048 spans each) and their encoding, and a bound if backends stall.
const HEAP_MB = 128;

export type SpanExportThread = {
  /** A span processor whose spans go where `pipeline` says, from the thread. */
  open: (pipeline: ExportPipelineData) => SpanProcessor;
  /** Ends the thread; the pipelines are shut down (and their spans sent) before, with their snapshots. */
  close: () => Promise<void>;
};

export function createSpanExportThread({ egress, logger }: { egress: EgressPolicy; logger: Logger }): SpanExportThread {
  let worker: Worker | undefined;
  const started = () => {
    if (worker !== undefined) return worker;
    const data: ExportThreadData = { egressAllow: formatEgressAllowList(egress.options.allow) };
    const made = new Worker(ENTRY, {
      workerData: data,
      env: {},
      name: 'span-export',
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB },
    });
    made.unref();
    made.on('error', (error) =>
      logger.error({ err: error }, 'the span export thread stopped; the spans it held are lost'),
    );
    // Gone, its pipelines' ports close (their processors stop); the next traced config starts another.
    made.on('exit', () => {
      if (worker === made) worker = undefined;
    });
    worker = made;
    return made;
  };
  const onReport = (report: unknown) => {
    const told = report as ExportThreadReport;
    if (told.kind === 'refused') {
      egress.options.onRefused(new EgressRefusedError(told.host, told.address, told.range));
    } else {
      logger.warn({ reason: told.message, spans: told.spans }, 'could not export traces to the observability backend');
    }
  };
  return {
    open: (pipeline) => {
      const { port1, port2 } = new MessageChannel();
      started().postMessage({ port: port2, data: pipeline }, [port2]);
      return createThreadSpanProcessor(port1, { onReport });
    },
    close: async () => {
      await worker?.terminate();
    },
  };
}
