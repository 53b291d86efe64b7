// MCP servers of transport "agent": another agent of the workspace, offered to the model as one tool.
// Nothing is connected at apply time: the manager published what the tool is (the callee's name and
// description, the input every agent's MCP tool takes), and each call opens its own session to the
// callee's MCP endpoint with a token minted for that call and run. Its address is the platform's (the
// callee's engine_url), and only it is reached: through the tenant egress policy when the callee's
// engine_url is its tenant's, directly when it is the operator's pool URL.
import {
  agentToolName,
  type TEngineAgentCalls,
  type TEngineCallee,
  type TMcpServerConfig,
} from '@agentplane/contracts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { EgressPolicy } from '../egress/egress-policy.js';
import type { AgentCallTokens } from './agent-call-tokens.js';

/** What a call to an agent needs of the run that makes it: its id, from which the manager reads the chain of calls. */
export type ToolCallContext = { runId: string };

/** The input every agent's MCP tool takes (its `{agent base}/mcp` server). */
export const AGENT_TOOL_PARAMETERS = {
  type: 'object',
  properties: {
    message: { type: 'string', description: 'What to ask the agent' },
    thread_id: { type: 'string', description: "The agent's thread to continue, from an earlier answer" },
  },
  required: ['message'],
  additionalProperties: false,
};

export type AgentCallSettings = {
  calls: TEngineAgentCalls | null;
  /** Absent without ENGINE_MANAGER_ISSUER: there is no manager to ask for tokens. */
  tokens: AgentCallTokens | undefined;
  egress: EgressPolicy;
};

export type AgentTool = {
  server: TMcpServerConfig;
  callee: TEngineCallee;
  /** The callee's tool name on its own MCP server. */
  toolName: string;
  description: string;
};

/** Why the server's agent cannot be called at all, or its tool. */
export function resolveAgentTool(
  server: TMcpServerConfig,
  { calls, tokens }: AgentCallSettings,
): { tool: AgentTool } | { unavailable: string } {
  const callee = calls?.callees.find((entry) => entry.agent_id === server.agent_id);
  if (callee === undefined) return { unavailable: 'The agent it calls is not in this config' };
  if (callee.url === null) return { unavailable: 'The agent it calls has no engine_url yet' };
  if (tokens === undefined) {
    return { unavailable: 'ENGINE_MANAGER_ISSUER is not set, so there is no manager to ask for call tokens' };
  }
  return {
    tool: {
      server,
      callee,
      toolName: agentToolName(callee.name),
      description: callee.description ?? `Ask the agent "${callee.name}" and get its reply`,
    },
  };
}

/** One call: a token for it, a session to the callee's MCP endpoint, the call, the session ended. */
export async function callAgentTool(
  tool: AgentTool,
  args: Record<string, unknown>,
  { signal, context, settings }: { signal: AbortSignal; context: ToolCallContext; settings: AgentCallSettings },
): Promise<CallToolResult> {
  if (settings.tokens === undefined || tool.callee.url === null) throw new Error('The agent cannot be called');
  const token = await settings.tokens(tool.callee.agent_id, context.runId, signal);
  const timeout = tool.server.timeoutSeconds * 1000;
  const transport = new StreamableHTTPClientTransport(new URL(tool.callee.url), {
    ...(tool.callee.platform_url ? {} : { fetch: settings.egress.fetch }),
    requestInit: { headers: { Authorization: `Bearer ${token}` }, redirect: 'error' },
  });
  const client = new Client({ name: 'agentplane-engine', version: '0.1.0' });
  try {
    await client.connect(transport, { signal, timeout });
    return (await client.callTool({ name: tool.toolName, arguments: args }, undefined, {
      signal,
      timeout,
    })) as CallToolResult;
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}
