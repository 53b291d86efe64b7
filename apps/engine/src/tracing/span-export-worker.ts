// The engine's span export thread (export-thread.ts starts it): for each applied config with
// tracing, a pipeline whose spans are batched and sent to the tenant's backend over connections
// checked by the same egress policy as the engine's. Failures and refusals go back to the engine's
// log. It is given no environment, so nothing of the operator's reaches the code that talks to a
// tenant's backend.
import type http from 'node:http';
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import {
  createBatchSpanProcessor,
  createOtlpSpanExporter,
  pipelineResource,
  reportFromExportThread,
  serveSpanExport,
  ZEgressAllowList,
} from '@agentplane/server-kit';
import { createCheckedHttpAgent, type EgressPolicyOptions } from '../egress/egress-policy.js';
import type { ExportPipelineData, ExportThreadData, ExportThreadReport } from './export-thread-protocol.js';

const allow = ZEgressAllowList.parse((workerData as ExportThreadData).egressAllow);

function servePipeline(port: MessagePort, data: ExportPipelineData): void {
  const report = (message: ExportThreadReport) => reportFromExportThread(port, message);
  const policy: EgressPolicyOptions = {
    allow,
    onRefused: ({ host, address, range }) => report({ kind: 'refused', host, address, range }),
  };
  const agents: http.Agent[] = [];
  const exporter = createOtlpSpanExporter({
    ...data.exporter,
    agentFactory: (protocol) => {
      const made = createCheckedHttpAgent(protocol, policy);
      agents.push(made);
      return made;
    },
    onFailure: (error, spans) => report({ kind: 'export-failed', message: error?.message ?? 'unknown error', spans }),
  });
  serveSpanExport(port, {
    processor: createBatchSpanProcessor(exporter),
    resource: pipelineResource(data.serviceName, data.attributes),
    close: async () => {
      for (const made of agents) made.destroy();
    },
  });
}

parentPort?.on('message', ({ port, data }: { port: MessagePort; data: ExportPipelineData }) =>
  servePipeline(port, data),
);
