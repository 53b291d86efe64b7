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

/** The agent's own `runs.multitaskStrategy`: what a run that names none is queued under. */
export function configuredMultitaskStrategy(config: AgentSnapshot['config']): TMultitaskStrategy {
  const configured = (config.agent.config as { runs?: { multitaskStrategy?: TMultitaskStrategy } }).runs;
  return configured?.multitaskStrategy ?? 'reject';
}

/** A RunAgentInput whose ids fit ours, else a 422; other protocols' runs are built and checked with it too. */
export function checkRunInput(body: unknown): RunAgentInput {
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) {
    throw new AppError('validation_failed', INVALID, { errors: formatZodIssues(parsed.error) });
  }
  // AG-UI takes any string as an id; ours go into URLs, keys and NOTIFY payloads (contracts' ZAguiId).
  const ids = ZRunInputIds.safeParse(parsed.data);
  if (!ids.success) throw new AppError('validation_failed', INVALID, { errors: formatZodIssues(ids.error) });
  return parsed.data as RunAgentInput;
}

export function parseRunRequest(req: Request, config: AgentSnapshot['config']): RunRequest {
  if (!req.is('application/json')) {
    throw new AppError('unsupported_media_type', 'Send the RunAgentInput as application/json.');
  }
  const input = checkRunInput(req.body);
  return {
    input,
    onDisconnect: readDisconnectPolicy(input.forwardedProps),
    multitaskStrategy: readMultitaskStrategy(input.forwardedProps, config),
  };
}
