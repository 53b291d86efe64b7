// The name under which an agent is offered as a tool (its MCP server's one tool, another agent's
// toolset): derived from the agent's name alone, so it stays the same across config versions and
// engines. MCP clients and model providers accept [a-zA-Z0-9_-] names of at most 64 characters.

/** The longest tool name model providers accept. */
export const AGENT_TOOL_NAME_MAX_LENGTH = 64;
const FALLBACK = 'agent';

/**
 * Lowercase; every run of characters outside [a-z0-9_-] becomes one `_`; `_` and `-` trimmed from both
 * ends; at most 64 characters; `agent` when nothing is left.
 */
export function agentToolName(agentName: string): string {
  const name = agentName
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '')
    .slice(0, AGENT_TOOL_NAME_MAX_LENGTH)
    .replace(/[_-]+$/, '');
  return name === '' ? FALLBACK : name;
}
