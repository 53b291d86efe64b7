// The egress policy tests' own loopback peers need: loopback allowed, as the test engines have it.
import { LOOPBACK_EGRESS_ALLOW, ZEgressAllowList } from '@agentplane/server-kit';
import { createEgressPolicy, type EgressPolicy } from '../egress/egress-policy.js';

export function createLoopbackEgress(): EgressPolicy {
  return createEgressPolicy({ allow: ZEgressAllowList.parse(LOOPBACK_EGRESS_ALLOW), onRefused: () => {} });
}
