// What the run routes take and answer, for the engine's OpenAPI document.
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { GUARDRAIL_ACTIONS_PER_RUN_MAX, RUN_SOURCES, ZGuardrailActionRecord } from '@agentplane/contracts';
import { z } from 'zod';

// AG-UI's own schema, as JSON Schema: the OpenAPI generator knows not some of its zod types (its
// messages, tools and resume), which the JSON Schema conversion renders.
const { $schema: _dialect, ...runAgentInput } = z.toJSONSchema(RunAgentInputSchema, {
  unrepresentable: 'any',
  io: 'input',
});

/** The body of POST /agent/run and POST /agent/runs. */
export const ZRunAgentInputDocument = z.looseObject({}).meta({
  ...runAgentInput,
  id: 'RunAgentInput',
  description:
    'An AG-UI RunAgentInput. `forwardedProps.agentplane` may set `onDisconnect` ("cancel" or "continue") ' +
    "and `multitaskStrategy`, which overrides the agent's runs.multitaskStrategy for this run.",
});

const ZRunStatus = z.enum(['pending', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted']);

/** A run as the thread and run routes list it: never its messages. */
export const ZRunSummary = z
  .object({
    id: z.string(),
    status: ZRunStatus,
    source: z.enum(RUN_SOURCES),
    created_at: z.iso.datetime(),
    started_at: z.iso.datetime().nullable(),
    finished_at: z.iso.datetime().nullable(),
    error: z.string().nullable(),
    usage: z.record(z.string(), z.unknown()).nullable().meta({ description: 'Tokens and cost, once the run ended' }),
  })
  .meta({ id: 'RunSummary' });

export const ZRunRecord = ZRunSummary.extend({
  thread_id: z.string(),
  caller_agent_id: z.uuid().nullable().meta({
    description: 'The agent whose run called this one as a tool (an MCP server of transport "agent"), else null',
  }),
  caller_run_id: z.string().nullable().meta({ description: 'That calling run, else null' }),
  guardrail_actions: z.array(ZGuardrailActionRecord).meta({
    description: `The guardrail rules that fired in the run, oldest first (at most ${GUARDRAIL_ACTIONS_PER_RUN_MAX})`,
  }),
}).meta({ id: 'RunRecord' });

export const ZRunAccepted = z
  .object({ run_id: z.string(), thread_id: z.string(), status: z.enum(['pending', 'cancelled', 'running']) })
  .meta({ id: 'RunAccepted' });

export const EVENT_STREAM = {
  description:
    'AG-UI events as server-sent events (`id:` is `<runId>:<seq>` when the run is recorded), or as ' +
    'protobuf frames when Accept is application/vnd.ag-ui.event+proto',
  contentType: 'text/event-stream',
  schema: z.string(),
};
