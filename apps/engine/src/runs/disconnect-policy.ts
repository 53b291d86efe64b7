// What a run started by POST /agent/run does when its client goes away, chosen by the client in
// `forwardedProps.agentplane.onDisconnect`: `cancel` (the default) aborts it, `continue` lets it
// finish, to be rejoined at GET /agent/runs/{runId}/stream.
import { AppError } from '@agentplane/server-kit';

export type DisconnectPolicy = 'cancel' | 'continue';
const POLICIES: readonly unknown[] = ['cancel', 'continue'] satisfies DisconnectPolicy[];

export function readDisconnectPolicy(forwardedProps: unknown): DisconnectPolicy {
  const agentplane = (forwardedProps as { agentplane?: unknown } | undefined)?.agentplane;
  const value = (agentplane as { onDisconnect?: unknown } | undefined)?.onDisconnect;
  if (value === undefined) return 'cancel';
  if (!POLICIES.includes(value)) {
    throw new AppError('validation_failed', 'The body is not a valid AG-UI RunAgentInput.', {
      errors: [{ path: 'forwardedProps.agentplane.onDisconnect', message: 'must be "cancel" or "continue"' }],
    });
  }
  return value as DisconnectPolicy;
}
