export { overrideEnvironment } from './environment.js';
export {
  type FakeOpenAiServer,
  type RecordedRequest,
  type ScriptedToolCall,
  type ScriptedTurn,
  startFakeOpenAiServer,
} from './fake-openai-server.js';
export { applyMutations, type Mutation, mutationArbitrary, toJsonText } from './json-mutations.js';
export { listenOnLoopback } from './listen-on-loopback.js';
export {
  type AttributeValue,
  type OtlpReceiver,
  type ReceivedExport,
  type ReceivedSpan,
  startOtlpReceiver,
} from './otlp-receiver.js';
export { type PrometheusSample, parsePrometheusText, sampleValue, scrapeMetrics } from './prometheus-text.js';
export { makeRunAgentInput } from './run-agent-input.js';
export {
  type ServiceProcess,
  type ServiceProcessOptions,
  startServiceProcess,
} from './service-process.js';
export { waitUntil } from './wait-until.js';
