import { useLocation } from 'react-router';

// The managed resource kinds the console shows, as the navigation needs them. What a kind's form holds
// (schema, fields, API calls) is in resource-forms.tsx, loaded with its pages; a new kind is one entry
// in each.
export type ResourceKind = {
  id: 'integrations' | 'mcp-servers' | 'sso' | 'observability';
  /** The page's path, and its heading and nav link. */
  route: string;
  title: string;
  singular: string;
};

export const RESOURCE_KINDS: ResourceKind[] = [
  { id: 'mcp-servers', route: 'mcp-servers', title: 'MCP servers', singular: 'MCP server' },
  { id: 'integrations', route: 'integrations', title: 'Integrations', singular: 'integration' },
  { id: 'sso', route: 'sso', title: 'SSO configs', singular: 'SSO config' },
  { id: 'observability', route: 'observability', title: 'Observability', singular: 'observability config' },
];

/** The kind whose pages are showing: the first segment of the path names it. */
export function useResourceKind(): ResourceKind {
  const segment = useLocation().pathname.split('/')[1];
  const kind = RESOURCE_KINDS.find((candidate) => candidate.route === segment);
  if (!kind) throw new Error(`No resource kind at /${segment}`);
  return kind;
}
