import { useLocation } from 'react-router';

// The managed resource kinds the console shows, as the navigation needs them. What a kind's form holds
// (schema, fields, API calls) is in resource-forms.tsx, loaded with its pages; a new kind is one entry
// in each.
export type ResourceKind = {
  id: 'integrations' | 'mcp-servers' | 'sso' | 'observability' | 'guardrails';
  /** The page's path, and its heading and nav link. */
  route: string;
  title: string;
  singular: string;
  /** What one is for, as an empty list says it. */
  purpose: string;
};

export const RESOURCE_KINDS: ResourceKind[] = [
  {
    id: 'mcp-servers',
    route: 'mcp-servers',
    title: 'MCP servers',
    singular: 'MCP server',
    purpose: 'An MCP server gives the agents that use it tools to call.',
  },
  {
    id: 'integrations',
    route: 'integrations',
    title: 'Integrations',
    singular: 'integration',
    purpose:
      'An integration connects agents to a channel: a WhatsApp number, or a Slack, Telegram, Discord, Microsoft Teams or Google Chat app.',
  },
  {
    id: 'sso',
    route: 'sso',
    title: 'SSO configs',
    singular: 'SSO config',
    purpose: "An SSO config lets an agent accept its users' tokens from your identity provider.",
  },
  {
    id: 'observability',
    route: 'observability',
    title: 'Observability',
    singular: 'observability config',
    purpose: 'An observability config sends the traces of the agents that use it to your tracing backend.',
  },
  {
    id: 'guardrails',
    route: 'guardrails',
    title: 'Guardrails',
    singular: 'guardrail',
    purpose:
      'A guardrail holds rules the agents that use it apply to their input, their tool calls and their streamed replies, whatever the prompt says.',
  },
];

/** The kind whose pages are showing: the first segment of the path names it. */
export function useResourceKind(): ResourceKind {
  const segment = useLocation().pathname.split('/')[1];
  const kind = RESOURCE_KINDS.find((candidate) => candidate.route === segment);
  if (!kind) throw new Error(`No resource kind at /${segment}`);
  return kind;
}
