// The `agent_call` claim names the agent and run that called: only a token the manager signed may say
// that. The same claim in a token of the agent's own SSO issuer (a tenant's) is dropped before any run
// sees it, and a manager token whose subject is not that calling agent carries no calling run.
import { randomUUID } from 'node:crypto';
import { createLogger } from '@agentplane/server-kit';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestIssuer, type TestIssuer } from '../testing/oidc-issuer.js';
import { callerOf } from '../threads/thread-scope.js';
import { createAuthenticator } from './authenticator.js';
import { createJwksResolver } from './jwks-resolver.js';

const agentId = randomUUID();
const callingAgent = randomUUID();
const agentCall = { caller_agent_id: callingAgent, caller_run_id: 'run-1', chain: [callingAgent] };
let manager: TestIssuer;
let tenant: TestIssuer;

beforeAll(async () => {
  [manager, tenant] = await Promise.all([startTestIssuer(), startTestIssuer()]);
});
afterAll(async () => {
  await Promise.all([manager?.close(), tenant?.close()]);
});

function authenticator() {
  const resolver = createJwksResolver();
  return createAuthenticator({
    sso: { enabled: true, issuer: tenant.issuer, audience: agentId, algorithms: ['RS256'] },
    fallback: undefined,
    manager: { enabled: true, issuer: manager.issuer, audience: agentId, algorithms: ['RS256'] },
    authDisabled: false,
    resolvers: { tenant: resolver, operator: resolver },
    logger: createLogger({ name: 'test', level: 'silent' }),
  });
}

async function callingRunOfToken(token: string) {
  return callerOf(await authenticator().authenticate(`Bearer ${token}`))?.callingRun;
}

describe('the agent_call claim', () => {
  it("names the calling agent and run in a manager's token for that agent", async () => {
    const token = await manager.sign({ aud: agentId, sub: `agent:${callingAgent}`, agent_call: agentCall });
    expect(await callingRunOfToken(token)).toEqual({ agentId: callingAgent, runId: 'run-1' });
  });

  it("is dropped from a token of the agent's own SSO issuer, which could forge it", async () => {
    const token = await tenant.sign({ aud: agentId, sub: `agent:${callingAgent}`, agent_call: agentCall });
    const claims = await authenticator().authenticate(`Bearer ${token}`);
    expect(claims).not.toHaveProperty('agent_call');
    expect(callerOf(claims)).toEqual({ issuer: tenant.issuer, subject: `agent:${callingAgent}` });
  });

  it('names nothing when the subject is not the calling agent, or the claim is malformed', async () => {
    const otherSubject = await manager.sign({ aud: agentId, sub: 'user-1', agent_call: agentCall });
    expect(await callingRunOfToken(otherSubject)).toBeUndefined();
    for (const malformed of [{ ...agentCall, caller_agent_id: 'x' }, { ...agentCall, caller_run_id: 'a\u0000' }, 'x']) {
      const token = await manager.sign({ aud: agentId, sub: `agent:${callingAgent}`, agent_call: malformed });
      expect(await callingRunOfToken(token)).toBeUndefined();
    }
  });
});
