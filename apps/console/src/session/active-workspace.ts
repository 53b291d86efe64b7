// The workspace every request acts in (x-workspace-id). Kept across reloads; the signed-in user's
// memberships decide whether the kept one still applies.
const STORAGE_KEY = 'agentplane.workspace';
let active: string | undefined;

export function activeWorkspaceId(): string | undefined {
  return active;
}

export function chooseWorkspace(
  me: { workspaces: { id: string }[]; default_workspace_id: string | null },
  wanted = localStorage.getItem(STORAGE_KEY),
): string | undefined {
  const member = me.workspaces.some((workspace) => workspace.id === wanted);
  active = (member ? wanted : me.default_workspace_id) ?? undefined;
  if (active) localStorage.setItem(STORAGE_KEY, active);
  return active;
}
