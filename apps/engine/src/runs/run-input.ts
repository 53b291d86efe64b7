// The body of POST /agent/run and POST /agent/runs: an AG-UI RunAgentInput, plus the choices a client
// makes in `forwardedProps.agentplane`: `onDisconnect` (disconnect-policy.ts) and `multitaskStrategy`,
// which overrides the agent's `runs.multitaskStrategy` for this run (reject unless configured).
import type { RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { formatZodIssues, MULTITASK_STRATEGIES, type TMultitaskStrategy, ZRunInputIds } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import type { Request } from 'express';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';
import { type DisconnectPolicy, readDisconnectPolicy } from './disconnect-policy.js';

export type RunRequest = {
  input: RunAgentInput;
  onDisconnect: DisconnectPolicy;
  multitaskStrategy: TMultitaskStrategy;
};

const INVALID = 'The body is not a valid AG-UI RunAgentInput.';

/** The agent's `runs.multitaskStrategy`: what a run on a busy thread does unless its client says otherwise. */
export function configuredMultitaskStrategy(config: AgentSnapshot['config']): TMultitaskStrategy {
  const configured = (config.agent.config as { runs?: { multitaskStrategy?: TMultitaskStrategy } }).runs;
  return configured?.multitaskStrategy ?? 'reject';
}

function readMultitaskStrategy(forwardedProps: unknown, config: AgentSnapshot['config']): TMultitaskStrategy {
  const agentplane = (forwardedProps as { agentplane?: unknown } | undefined)?.agentplane;
  const value = (agentplane as { multitaskStrategy?: unknown } | undefined)?.multitaskStrategy;
  if (value === undefined) return configuredMultitaskStrategy(config);
  if (!(MULTITASK_STRATEGIES as readonly unknown[]).includes(value)) {
    throw new AppError('validation_failed', INVALID, {
      errors: [
        {
          path: 'forwardedProps.agentplane.multitaskStrategy',
          message: `must be one of ${MULTITASK_STRATEGIES.map((name) => `"${name}"`).join(', ')}`,
        },
      ],
    });
  }
  return value as TMultitaskStrategy;
}

export function parseRunRequest(req: Request, config: AgentSnapshot['config']): RunRequest {
  if (!req.is('application/json')) {
    throw new AppError('unsupported_media_type', 'Send the RunAgentInput as application/json.');
  }
  const parsed = RunAgentInputSchema.safeParse(req.body);
  if (!parsed.success) {
    throw new AppError('validation_failed', INVALID, { errors: formatZodIssues(parsed.error) });
  }
  // AG-UI takes any string as an id; ours go into URLs, keys and NOTIFY payloads (contracts' ZAguiId).
  const ids = ZRunInputIds.safeParse(parsed.data);
  if (!ids.success) throw new AppError('validation_failed', INVALID, { errors: formatZodIssues(ids.error) });
  return {
    input: parsed.data as RunAgentInput,
    onDisconnect: readDisconnectPolicy(parsed.data.forwardedProps),
    multitaskStrategy: readMultitaskStrategy(parsed.data.forwardedProps, config),
  };
}
