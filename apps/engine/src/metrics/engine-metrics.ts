// The engine's own metrics, in one registry per engine (server-kit's createMetricsRegistry); the
// figures read at scrape time (config, channel queue) are added where their sources exist
// (config-metrics.ts, channel-queue-metrics.ts).
import { Counter, createMetricsRegistry, Gauge, Histogram, METRIC_PREFIX, type Registry } from '@agentplane/server-kit';

export type StreamKind = 'live' | 'rejoin';

export type RunMetrics = {
  started: Counter<'source'>;
  finished: Counter<'source' | 'outcome'>;
  active: Gauge<'source'>;
  firstEvent: Histogram<'source'>;
  inputTokens: Counter;
  outputTokens: Counter;
};

export type EngineMetrics = {
  registry: Registry;
  runs: RunMetrics;
  /** Counts an SSE or protobuf response as open until the returned function is called. */
  openStream: (kind: StreamKind) => () => void;
  toolCalls: Histogram<'mcp_server' | 'tool' | 'outcome'>;
  toolRefusals: Counter<'mcp_server' | 'tool'>;
  /** Interrupts raised and answered, and approval-needing calls decided without a human (interrupts/run-approvals.ts). */
  interrupts: Counter<'reason' | 'outcome'>;
  channelRetries: Counter<'provider'>;
  /** Guardrail rules that fired, by rule kind, position and action (guardrails/guardrail-recorder.ts). */
  guardrailActions: Counter<'kind' | 'position' | 'action'>;
};

const SECONDS_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createEngineMetrics(): EngineMetrics {
  const registry = createMetricsRegistry('engine');
  const registers = [registry];
  const streams = new Gauge({
    name: `${METRIC_PREFIX}streams_open`,
    help: 'Run event streams open to clients: live (a run as it runs) and rejoin (a stored run replayed and followed).',
    labelNames: ['kind'] as const,
    registers,
  });
  return {
    registry,
    runs: {
      started: new Counter({
        name: `${METRIC_PREFIX}runs_started_total`,
        help: 'Runs this engine started, by source (stream, background, schedule, mcp, a2a, or a channel: whatsapp, slack, …).',
        labelNames: ['source'] as const,
        registers,
      }),
      finished: new Counter({
        name: `${METRIC_PREFIX}runs_finished_total`,
        help: 'Runs this engine ended, by source and outcome (succeeded, failed, cancelled, interrupted).',
        labelNames: ['source', 'outcome'] as const,
        registers,
      }),
      active: new Gauge({
        name: `${METRIC_PREFIX}runs_active`,
        help: 'Runs going on in this engine now, by source.',
        labelNames: ['source'] as const,
        registers,
      }),
      firstEvent: new Histogram({
        name: `${METRIC_PREFIX}run_first_event_seconds`,
        help: "Time from a run's start to its first event, by source.",
        labelNames: ['source'] as const,
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
        registers,
      }),
      inputTokens: new Counter({
        name: `${METRIC_PREFIX}model_input_tokens_total`,
        help: "Input (prompt) tokens of the engine's model calls, as the provider reported them.",
        registers,
      }),
      outputTokens: new Counter({
        name: `${METRIC_PREFIX}model_output_tokens_total`,
        help: "Output (completion) tokens of the engine's model calls, as the provider reported them.",
        registers,
      }),
    },
    openStream: (kind) => {
      streams.inc({ kind });
      let open = true;
      return () => {
        if (open) streams.dec({ kind });
        open = false;
      };
    },
    toolCalls: new Histogram({
      name: `${METRIC_PREFIX}tool_call_duration_seconds`,
      help: "MCP tool calls by server, tool and outcome (ok, error). Tool names come from the agent's config.",
      labelNames: ['mcp_server', 'tool', 'outcome'] as const,
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    toolRefusals: new Counter({
      name: `${METRIC_PREFIX}tool_calls_refused_total`,
      help: "Calls of MCP tools the agent's tool policy denies (or does not allow), refused without reaching their server.",
      labelNames: ['mcp_server', 'tool'] as const,
      registers,
    }),
    interrupts: new Counter({
      name: `${METRIC_PREFIX}interrupts_total`,
      help:
        "Interrupts of runs, by reason (tool_approval, graph_interrupt, other: a custom agent's own) and outcome: raised, " +
        'approved, rejected, and unattended_rejected or unattended_allowed for calls needing approval in runs nobody watches.',
      labelNames: ['reason', 'outcome'] as const,
      registers,
    }),
    channelRetries: new Counter({
      name: `${METRIC_PREFIX}channel_retries_total`,
      help: 'Channel messages put back on the queue to be tried again after a failed attempt, by provider (WHATSAPP, SLACK, …).',
      labelNames: ['provider'] as const,
      registers,
    }),
    guardrailActions: new Counter({
      name: `${METRIC_PREFIX}guardrail_actions_total`,
      help:
        'Guardrail rules that fired in runs, by rule kind (pattern, pii, prompt_injection, max_length, model_judge), ' +
        'position (input, tool_arguments, tool_result, output) and action (block, redact, log).',
      labelNames: ['kind', 'position', 'action'] as const,
      registers,
    }),
  };
}
