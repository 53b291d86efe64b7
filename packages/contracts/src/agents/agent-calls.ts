// An agent used as another agent's tool (an MCP server of transport "agent"): what the manager publishes
// to the calling engine, what that engine asks the manager for on every call, and the claim the
// short-lived token it gets carries to the called agent.
import { z } from 'zod';
import { DESCRIPTION_MAX_LENGTH, URL_MAX_LENGTH } from '../common/limits.js';
import { ZResourceName, ZUuid } from '../common/primitives.js';
import { ZAguiId } from '../engine/run-input-ids.js';
import { makeSecretString } from '../secrets/secret-string.js';

/** How many characters the credential holds after its agent id and dot: 32 random bytes, base64url. */
const CALL_SECRET_LENGTH = 43;

/** `<caller agent id>.<secret>`: the agent it speaks for is in the credential, so the manager needs no other hint. */
export const AGENT_CALL_CREDENTIAL = /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/;
export const AGENT_CALL_CREDENTIAL_LENGTH = 36 + 1 + CALL_SECRET_LENGTH;

/** One agent the calling agent may call: where the platform serves it, and what its tool says to a model. */
export const ZEngineCallee = z.strictObject({
  agent_id: ZUuid,
  name: ZResourceName,
  description: z.string().max(DESCRIPTION_MAX_LENGTH).nullable(),
  /** `{engine_url}/mcp`, derived by the manager; null while the agent has no engine_url. */
  url: z.string().max(URL_MAX_LENGTH).nullable(),
  /** True when the URL is an operator's pool URL, which the tenant egress policy does not judge. */
  platform_url: z.boolean(),
});
export type TEngineCallee = z.infer<typeof ZEngineCallee>;

export const ZEngineAgentCalls = z.strictObject({
  /** Sealed like every secret of a published config. */
  credential: makeSecretString(z.string(), AGENT_CALL_CREDENTIAL_LENGTH),
  callees: z.array(ZEngineCallee),
});
export type TEngineAgentCalls = z.infer<typeof ZEngineAgentCalls>;

export const ZAgentCallTokenRequest = z
  .strictObject({
    callee_agent_id: ZUuid,
    /** The calling agent's run that makes the call: the chain of calls so far is read from it. */
    caller_run_id: ZAguiId,
  })
  .meta({ id: 'AgentCallTokenRequest' });
export type TAgentCallTokenRequest = z.infer<typeof ZAgentCallTokenRequest>;

/** The claim of an agent-call token: who calls, from which run, and the agents from the origin to the caller. */
export const ZAgentCallClaim = z.strictObject({
  caller_agent_id: ZUuid,
  caller_run_id: ZAguiId,
  chain: z.array(ZUuid).min(1),
});
export type TAgentCallClaim = z.infer<typeof ZAgentCallClaim>;
