// The manager's view of an agent's runs (GET /agents/{id}/runs): status, timings, errors and usage,
// read from the engine's agent_runs table. No conversation content: no input, events or messages.
import { z } from 'zod';
import { ZPaginationQuery } from '../common/pagination.js';
import { ZIsoDateTime, ZUuid } from '../common/primitives.js';
import { ZRunScore } from '../evaluations/run-score.js';
import { ZGuardrailActionRecord } from '../guardrails/guardrail-actions.js';

export const RUN_STATUSES = [
  'pending',
  'running',
  'succeeded',
  'failed',
  'cancelled',
  'interrupted',
  'input_required',
] as const;
export type TRunStatus = (typeof RUN_STATUSES)[number];
/** Where runs of messaging channels come from: the provider's name, in lower case. */
export const CHANNEL_RUN_SOURCES = ['whatsapp', 'slack', 'telegram', 'discord', 'teams', 'google_chat'] as const;
export const RUN_SOURCES = [
  'stream',
  'background',
  'whatsapp',
  'mcp',
  'a2a',
  'slack',
  'telegram',
  'discord',
  'teams',
  'google_chat',
  'schedule',
  'experiment',
] as const;

export const ZAgentRunListQuery = ZPaginationQuery.extend({
  status: z.enum(RUN_STATUSES).optional().meta({ description: 'Only runs in this status' }),
});
export type TAgentRunListQuery = z.infer<typeof ZAgentRunListQuery>;

export const ZAgentRun = z
  .strictObject({
    id: z.string().meta({ description: 'The AG-UI runId' }),
    thread_id: z.string().meta({ description: "The client's AG-UI threadId" }),
    source: z.enum(RUN_SOURCES),
    status: z.enum(RUN_STATUSES),
    created_at: ZIsoDateTime,
    started_at: ZIsoDateTime.nullable(),
    finished_at: ZIsoDateTime.nullable(),
    duration_ms: z
      .number()
      .int()
      .min(0)
      .nullable()
      .meta({ description: 'finished_at - started_at; null until the run has both' }),
    error: z.string().nullable(),
    usage: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: 'Token usage, where the model reports it' }),
    caller_agent_id: ZUuid.nullable().meta({
      description:
        'The agent of this workspace whose run called this one as a tool (an MCP server of transport "agent"), else null',
    }),
    caller_run_id: z.string().nullable().meta({ description: 'That calling run, else null' }),
    agent_version: z.number().int().min(1).nullable().meta({
      description:
        'The engine_config version the run ran with (GET /agents/{id}/versions/{n}); null for runs recorded before versions',
    }),
    guardrail_actions: z.array(ZGuardrailActionRecord).meta({
      description: 'The guardrail rules that fired in the run, oldest first (at most 100)',
    }),
    scores: z.array(ZRunScore).meta({
      description:
        "The online scorers' grades of the run, by scorer name; empty when it was not sampled or is not scored yet (GET/PUT /agents/{id}/online-scoring)",
    }),
    issuer: z.string().nullable().optional().meta({
      description: "The caller's token issuer; admins and owners only, null for runs without a token",
    }),
    subject: z.string().nullable().optional().meta({
      description: "The caller's token subject (an end user); admins and owners only, null for runs without a token",
    }),
  })
  .meta({ id: 'AgentRun', description: "One of an agent's runs, without its conversation content" });
export type TAgentRun = z.infer<typeof ZAgentRun>;
