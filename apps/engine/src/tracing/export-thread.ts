// The engine's one span export thread, started with the first config that traces and kept for the
// next ones: loading the exporter takes a thread over half a second of CPU, too much to pay at every
// config change. Each traced config gets a pipeline of its own in it (its exporter, its batch), on a
// channel of its own, shut down with the config's snapshot. A thread that stops (a crash, its heap
// bound) is started again, and the open pipelines go on in the new one.
import { createRequire } from 'node:module';
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import {
  createThreadSpanProcessor,
  formatEgressAllowList,
  type Logger,
  type SpanProcessor,
  type ThreadSpanProcessor,
} from '@agentplane/server-kit';
import { type EgressPolicy, EgressRefusedError } from '../egress/egress-policy.js';
import type { ExportPipelineData, ExportThreadData, ExportThreadReport } from './export-thread-protocol.js';

// The built entry, under tests too: a thread loads its files as Node does, without the test runner's
// TypeScript transform (package.json exports it for this).
const ENTRY = createRequire(import.meta.url).resolve('@agentplane/engine/span-export-worker');
// Room for several full batch queues (2,048 spans each) and their encoding, and a bound if backends stall.
const HEAP_MB = 128;
// A thread that stopped is started again after this, doubled for each stop in a row up to the
// ceiling: starting one costs over half a second of CPU, too much to pay in a loop.
const RESTART_DELAY_MS = 1000;
const MAX_RESTART_DELAY_MS = 60_000;

export type SpanExportThread = {
  /** A span processor whose spans go where `pipeline` says, from the thread. */
  open: (pipeline: ExportPipelineData) => SpanProcessor;
  /** Ends the thread; the pipelines are shut down (and their spans sent) before, with their snapshots. */
  close: () => Promise<void>;
};

export type SpanExportThreadOptions = {
  egress: EgressPolicy;
  logger: Logger;
  /** Starts the thread (startSpanExportWorker unless a test watches the threads it starts). */
  startWorker?: (data: ExportThreadData) => Worker;
  restartDelayMs?: number;
};

export function startSpanExportWorker(data: ExportThreadData): Worker {
  return new Worker(ENTRY, {
    workerData: data,
    env: {},
    name: 'span-export',
    resourceLimits: { maxOldGenerationSizeMb: HEAP_MB },
  });
}

/** Sends `pipeline` to `worker` with a channel of its own, and gives back the event loop's end. */
function openPipeline(worker: Worker, pipeline: ExportPipelineData): MessagePort {
  const { port1, port2 } = new MessageChannel();
  worker.postMessage({ port: port2, data: pipeline }, [port2]);
  return port1;
}

export function createSpanExportThread({
  egress,
  logger,
  startWorker = startSpanExportWorker,
  restartDelayMs = RESTART_DELAY_MS,
}: SpanExportThreadOptions): SpanExportThread {
  let worker: Worker | undefined;
  let closing = false;
  let restartTimer: NodeJS.Timeout | undefined;
  let stopsInARow = 0;
  // The pipelines of the snapshots still open, and the thread each is in: a thread started after a
  // stop takes over those of the threads gone.
  const live = new Map<ThreadSpanProcessor, { pipeline: ExportPipelineData; in: Worker }>();

  const started = () => {
    if (worker !== undefined) return worker;
    const made = startWorker({ egressAllow: formatEgressAllowList(egress.options.allow) });
    const startedAt = performance.now();
    made.unref();
    made.on('error', (error) => logger.error({ err: error }, 'the span export thread failed'));
    made.on('exit', (code) => {
      if (worker !== made) return;
      worker = undefined;
      if (closing) return;
      // A thread that ran a while before it stopped is not part of a loop.
      stopsInARow = performance.now() - startedAt > MAX_RESTART_DELAY_MS ? 1 : stopsInARow + 1;
      const delay = Math.min(MAX_RESTART_DELAY_MS, restartDelayMs * 2 ** (stopsInARow - 1));
      logger.error(
        { exit_code: code, restart_in_ms: delay, pipelines: live.size },
        'the span export thread stopped; the spans it held are lost, and it is started again',
      );
      clearTimeout(restartTimer);
      restartTimer = setTimeout(restart, delay).unref();
    });
    worker = made;
    return made;
  };
  const restart = () => {
    restartTimer = undefined;
    const orphans = [...live].filter(([, opened]) => opened.in !== worker);
    if (closing || orphans.length === 0) return;
    const target = started();
    for (const [processor, opened] of orphans) {
      opened.in = target;
      processor.attach(openPipeline(target, opened.pipeline));
    }
  };
  const onReport = (report: unknown) => {
    const told = report as ExportThreadReport;
    if (told.kind === 'refused') {
      egress.options.onRefused(new EgressRefusedError(told.host, told.address, told.range, egress.options.hint));
    } else {
      logger.warn({ reason: told.message, spans: told.spans }, 'could not export traces to the observability backend');
    }
  };
  return {
    open: (pipeline) => {
      const target = started();
      const processor = createThreadSpanProcessor(openPipeline(target, pipeline), { onReport });
      live.set(processor, { pipeline, in: target });
      return {
        onStart: processor.onStart,
        onEnd: processor.onEnd,
        forceFlush: processor.forceFlush,
        shutdown: () => {
          live.delete(processor);
          return processor.shutdown();
        },
      };
    },
    close: async () => {
      closing = true;
      clearTimeout(restartTimer);
      await worker?.terminate();
    },
  };
}
