import { ZAgentCallTokenRequest } from '@agentplane/contracts';
import type { ApiRouter } from '../http/api-router.js';
import { ZAgentToken } from '../tokens/token-routes.js';
import { type AgentCallTokenDependencies, mintAgentCallToken } from './agent-call-tokens.js';

export function addAgentCallRoutes(api: ApiRouter, deps: AgentCallTokenDependencies): void {
  api.add(
    {
      method: 'post',
      path: '/agent-calls/tokens',
      operationId: 'createAgentCallToken',
      summary:
        'For engines: a short-lived token for one call from an agent to another of its workspace, through an MCP server of transport "agent". Authenticated by the calling agent\'s call credential (`Authorization: Bearer`), which is in its engine_config',
      tag: 'agents',
      // No session: the caller is an engine, and its credential is checked by the handler.
      access: { kind: 'public' },
      body: ZAgentCallTokenRequest,
      responses: { 201: { description: 'A signed JWT for the called agent', schema: ZAgentToken } },
      problems: {
        401: 'No agent-call credential, or not a valid one',
        403: 'The calling agent has no MCP server that calls this agent',
        409: 'The call would make a cycle (`agent-call-cycle`) or nest deeper than MAX_AGENT_CALL_DEPTH (`agent-call-depth`)',
      },
    },
    async ({ body }, req, res) => {
      const token = await mintAgentCallToken(deps, req.headers.authorization, body);
      res.status(201).set('Cache-Control', 'no-store').json(token);
    },
  );
}
