// The engine's egress policy: the shared connect-time checks (server-kit), whose refusals name the
// engine's own setting.

import type http from 'node:http';
import {
  createCheckedHttpAgent as createSharedCheckedHttpAgent,
  createEgressPolicy as createSharedEgressPolicy,
  type EgressPolicy,
  type EgressPolicyOptions,
} from '@agentplane/server-kit';

export {
  type EgressPolicy,
  type EgressPolicyOptions,
  EgressRefusedError,
  isEgressRefusal,
} from '@agentplane/server-kit';

/** Told to whoever sees a refusal, so that a developer with a local server knows what to set. */
export const EGRESS_ALLOW_HINT = 'the operator can allow it with ENGINE_EGRESS_ALLOW';

type EngineEgressOptions = Omit<EgressPolicyOptions, 'hint'>;

export function createEgressPolicy(options: EngineEgressOptions): EgressPolicy {
  return createSharedEgressPolicy({ ...options, hint: EGRESS_ALLOW_HINT });
}

export function createCheckedHttpAgent(protocol: string, options: EngineEgressOptions): http.Agent {
  return createSharedCheckedHttpAgent(protocol, { ...options, hint: EGRESS_ALLOW_HINT });
}
