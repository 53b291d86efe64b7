import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import type { Schemas } from '../api/api-client';
import { activeWorkspaceId, chooseWorkspace } from '../session/active-workspace';
import { ME_KEY } from '../session/use-me';

export function WorkspaceSwitcher({ me }: { me: Schemas['Me'] }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const switchTo = async (id: string) => {
    chooseWorkspace(me, id);
    // Every cached answer belongs to the workspace left behind.
    queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== ME_KEY[0] });
    await queryClient.invalidateQueries({ queryKey: ME_KEY });
    await navigate('/agents');
  };
  return (
    <div className="workspace-switcher">
      <label htmlFor="workspace-switcher">Workspace</label>
      <select
        id="workspace-switcher"
        value={activeWorkspaceId() ?? ''}
        onChange={(event) => void switchTo(event.target.value)}
      >
        {me.workspaces.map((workspace) => (
          <option key={workspace.id} value={workspace.id}>
            {workspace.name} ({workspace.role})
          </option>
        ))}
      </select>
      <Link to="/workspaces/new">Create workspace</Link>
    </div>
  );
}
