// The agent page's tabs, in order: each is a route of its own under /agents/:id (routes.tsx makes them
// from this list) and a tab in the page's tab list. A new tab (Versions, Schedules) is one entry here.
type TabModule = Promise<Record<string, unknown>>;

export type AgentTab = { path: string; label: string; load: () => TabModule; component: string };

export const AGENT_TABS: readonly AgentTab[] = [
  { path: 'playground', label: 'Playground', load: () => import('./tabs/playground-tab'), component: 'PlaygroundTab' },
  { path: 'settings', label: 'Settings', load: () => import('./tabs/settings-tab'), component: 'SettingsTab' },
  { path: 'runs', label: 'Runs', load: () => import('./tabs/runs-tab'), component: 'RunsTab' },
  {
    path: 'schedules',
    label: 'Schedules',
    load: () => import('./schedules/schedules-tab'),
    component: 'SchedulesTab',
  },
  {
    path: 'experiments',
    label: 'Experiments',
    load: () => import('../experiments/experiments-tab'),
    component: 'ExperimentsTab',
  },
  { path: 'usage', label: 'Usage', load: () => import('./tabs/usage-tab'), component: 'UsageTab' },
  { path: 'history', label: 'History', load: () => import('./tabs/history-tab'), component: 'HistoryTab' },
  { path: 'connect', label: 'Connect', load: () => import('./tabs/connect-tab'), component: 'ConnectTab' },
];

/** The tab an agent's own URL opens. */
export const DEFAULT_AGENT_TAB = 'playground';
