// What a person pastes to reach an agent from outside the console: the manager's token route, an MCP
// client's config (streamable HTTP with a bearer header) and an A2A 1.0 SendMessage. <token> stays a
// placeholder: tokens are short-lived and the console shows none.
//
// A dedicated agent's engine_url is whatever an admin of the workspace typed, and a URL's path may hold
// $(…), backquotes, ; or ': every URL goes into a command single-quoted, so that pasting it runs curl
// and nothing else for the colleague who copies it.
import { agentToolName, type TAgentEndpoints } from '@agentplane/contracts';

type AgentToReach = { id: string; name: string; endpoints: TAgentEndpoints };

/** `text` as one shell word, whatever it holds. */
export function shellQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Mints a token with the session cookie `POST /api/v1/auth/login` set (curl -c jar). */
export function tokenCurl(managerOrigin: string, agentId: string): string {
  return `curl -b jar -X POST ${shellQuoted(`${managerOrigin}/api/v1/agents/${agentId}/token`)}`;
}

/** An MCP client config (Cursor, Claude Code, VS Code and other clients that speak streamable HTTP). */
export function mcpClientConfig(agent: AgentToReach): string {
  const server = { url: agent.endpoints.mcp, headers: { Authorization: 'Bearer <token>' } };
  return JSON.stringify({ mcpServers: { [agentToolName(agent.name)]: server } }, null, 2);
}

/** An A2A 1.0 JSON-RPC SendMessage: the reply comes back as a task once the run ends. */
export function a2aCurl(agent: AgentToReach): string {
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
  };
  return [
    `curl -H 'Authorization: Bearer <token>' -H 'A2A-Version: 1.0' -H 'content-type: application/json' \\`,
    `  -d '${JSON.stringify(body)}' \\`,
    `  ${shellQuoted(agent.endpoints.a2a)}`,
  ].join('\n');
}
