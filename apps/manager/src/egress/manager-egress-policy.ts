// The connect-time egress policy of the calls the manager itself makes to tenant URLs (webhook
// deliveries, model judges): EGRESS_ALLOW decides, and each refusal is logged with what was refused.
import { createEgressPolicy, type EgressAllowList, type EgressPolicy, type Logger } from '@agentplane/server-kit';

export const MANAGER_EGRESS_ALLOW_HINT = 'the operator can allow it with EGRESS_ALLOW';

/** `what` names the caller in the log line, e.g. "a webhook delivery". */
export function createManagerEgressPolicy(allow: EgressAllowList, logger: Logger, what: string): EgressPolicy {
  return createEgressPolicy({
    allow,
    hint: MANAGER_EGRESS_ALLOW_HINT,
    onRefused: ({ host, address, range }) =>
      logger.warn({ host, address, range }, `${what} was refused by the egress policy`),
  });
}
