// The signed-in shell: navigation, the workspace switcher and sign-out around each page. Without a
// session it sends the visitor to the sign-in page, and back here afterwards.
import { Suspense } from 'react';
import { Navigate, NavLink, Outlet, useLocation } from 'react-router';
import { RESOURCE_KINDS } from '../resources/resource-kinds';
import { useMe, useRole } from '../session/use-me';
import { SignOutButton } from './sign-out-button';
import { WorkspaceSwitcher } from './workspace-switcher';

const NAV = [
  { to: '/agents', label: 'Agents' },
  { to: '/usage', label: 'Usage' },
  { to: '/datasets', label: 'Datasets' },
  ...RESOURCE_KINDS.map((kind) => ({ to: `/${kind.route}`, label: kind.title })),
  { to: '/workspace', label: 'Workspace settings' },
  // The API answers admins and owners only.
  { to: '/webhooks', label: 'Webhooks', adminsOnly: true },
  { to: '/members', label: 'Members' },
  { to: '/account', label: 'Account' },
];

export function AppLayout() {
  const { data: me, isPending, error } = useMe();
  const { canAdmin } = useRole();
  const location = useLocation();
  if (isPending) return <p aria-busy="true">Loading…</p>;
  if (error) return <p role="alert">The manager cannot be reached: {error.message}</p>;
  if (!me) return <Navigate to={`/sign-in?next=${encodeURIComponent(location.pathname)}`} replace />;
  return (
    <div className="shell">
      <header>
        <a href="/agents" className="brand">
          Agentplane
        </a>
        <nav aria-label="Main">
          <ul>
            {NAV.filter((item) => canAdmin || !item.adminsOnly).map((item) => (
              <li key={item.to}>
                <NavLink to={item.to}>{item.label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="session">
          <WorkspaceSwitcher me={me} />
          <span className="who">{me.user.email}</span>
          <SignOutButton />
        </div>
      </header>
      <main>
        <Suspense fallback={<p aria-busy="true">Loading…</p>}>
          {/* Keyed by section: the resource kinds share one list component, whose page and kept data
              must not carry over from MCP servers to Integrations (it rendered one kind's rows as another's). */}
          <Outlet key={location.pathname.split('/')[1]} />
        </Suspense>
      </main>
    </div>
  );
}
