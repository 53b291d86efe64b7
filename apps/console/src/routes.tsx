// Every page but the shell is its own chunk, loaded on first visit: the initial JavaScript stays within
// its budget (scripts/check-bundle-budget.mjs) however many pages there are.
import type { ComponentType } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import { AGENT_TABS, DEFAULT_AGENT_TAB } from './agents/agent-tabs';
import { AppLayout } from './layout/app-layout';
import { RouteError } from './layout/route-error';
import { RESOURCE_KINDS } from './resources/resource-kinds';

type PageModule = Promise<Record<string, unknown>>;
const page = (load: () => PageModule, name: string) => async () => ({
  Component: (await load())[name] as ComponentType,
});

// One list page and one edit page serve every managed resource kind (they read it from the path).
const resourceRoutes = RESOURCE_KINDS.flatMap((kind) => [
  { path: kind.route, lazy: page(() => import('./resources/resource-list-page'), 'ResourceListPage') },
  { path: `${kind.route}/:id`, lazy: page(() => import('./resources/resource-edit-page'), 'ResourceEditPage') },
]);

export const router = createBrowserRouter([
  { path: '/sign-in', lazy: page(() => import('./auth/sign-in-page'), 'SignInPage'), errorElement: <RouteError /> },
  { path: '/sign-up', lazy: page(() => import('./auth/sign-up-page'), 'SignUpPage'), errorElement: <RouteError /> },
  {
    path: '/',
    element: <AppLayout />,
    errorElement: <RouteError />,
    children: [
      { index: true, element: <Navigate to="/agents" replace /> },
      { path: 'agents', lazy: page(() => import('./agents/agents-page'), 'AgentsPage') },
      { path: 'agents/new', lazy: page(() => import('./agents/new-agent-page'), 'NewAgentPage') },
      {
        path: 'agents/:id',
        lazy: page(() => import('./agents/agent-page'), 'AgentPage'),
        children: [
          { index: true, element: <Navigate to={DEFAULT_AGENT_TAB} replace /> },
          ...AGENT_TABS.map((tab) => ({ path: tab.path, lazy: page(tab.load, tab.component) })),
          // Under their tabs' URLs, so the tab stays selected on a run or an experiment.
          { path: 'runs/:runId', lazy: page(() => import('./run-view/run-view-page'), 'RunViewPage') },
          {
            path: 'experiments/:experimentId',
            lazy: page(() => import('./experiments/experiment-page'), 'ExperimentPage'),
          },
        ],
      },
      { path: 'usage', lazy: page(() => import('./usage/workspace-usage-page'), 'WorkspaceUsagePage') },
      ...resourceRoutes,
      { path: 'workspace', lazy: page(() => import('./workspaces/workspace-settings-page'), 'WorkspaceSettingsPage') },
      { path: 'webhooks', lazy: page(() => import('./webhooks/webhooks-page'), 'WebhooksPage') },
      { path: 'webhooks/new', lazy: page(() => import('./webhooks/new-webhook-page'), 'NewWebhookPage') },
      { path: 'webhooks/:id', lazy: page(() => import('./webhooks/webhook-page'), 'WebhookPage') },
      { path: 'datasets', lazy: page(() => import('./datasets/datasets-page'), 'DatasetsPage') },
      { path: 'datasets/:id', lazy: page(() => import('./datasets/dataset-page'), 'DatasetPage') },
      { path: 'members', lazy: page(() => import('./workspaces/members-page'), 'MembersPage') },
      { path: 'workspaces/new', lazy: page(() => import('./workspaces/create-workspace-page'), 'CreateWorkspacePage') },
      {
        path: 'invitations/:token',
        lazy: page(() => import('./workspaces/accept-invitation-page'), 'AcceptInvitationPage'),
      },
      { path: 'account', lazy: page(() => import('./account/account-page'), 'AccountPage') },
      { path: '*', element: <p>No such page.</p> },
    ],
  },
]);
