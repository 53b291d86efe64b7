// The calling side of an agent used as another's tool: before each call, the engine asks the manager
// (at ENGINE_MANAGER_ISSUER, the operator's setting) for a token for that one call, with the credential
// published in its config and the run that calls. The manager decides: it refuses a cycle or a chain
// too deep, and says why in a sentence of its own, which the calling model gets to read.
import { ZAgentCallTokenRequest } from '@agentplane/contracts';
import { readCappedBody } from '../auth/read-capped-body.js';

/** A token for one call to `calleeId` from `callerRunId`; rejects with the manager's reason when refused. */
export type AgentCallTokens = (calleeId: string, callerRunId: string, signal: AbortSignal) => Promise<string>;

// A token response is a few hundred bytes; a problem a few hundred more.
const MAX_RESPONSE_BYTES = 16 * 1024;

/** Why the manager gave no token: its problem's detail, or what went wrong on the way. */
export class AgentCallRefused extends Error {
  override name = 'AgentCallRefused';
}

async function readJson(response: Response): Promise<Record<string, unknown>> {
  try {
    const body = await readCappedBody(response, MAX_RESPONSE_BYTES, 'the manager answer');
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function createAgentCallTokens(managerUrl: string, credential: string): AgentCallTokens {
  const url = `${managerUrl}/api/v1/agent-calls/tokens`;
  return async (calleeId, callerRunId, signal) => {
    const body = ZAgentCallTokenRequest.parse({ callee_agent_id: calleeId, caller_run_id: callerRunId });
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${credential}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        redirect: 'error',
        signal,
      });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new AgentCallRefused('The manager could not be reached for a token.', { cause: error });
    }
    const answer = await readJson(response);
    if (response.status === 201 && typeof answer.access_token === 'string') return answer.access_token;
    const detail = typeof answer.detail === 'string' ? answer.detail : `The manager answered ${response.status}.`;
    throw new AgentCallRefused(detail);
  };
}
