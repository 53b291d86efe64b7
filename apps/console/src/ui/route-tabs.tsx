// Tabs that are pages: each has its own URL (shared, bookmarked, reloaded), shown as the ARIA tabs
// pattern so assistive technology reads them as tabs: one tab in the tab order, the arrow keys, Home
// and End move between them (and open them, as the tabs are links), and the panel is labelled by its tab.
import { type KeyboardEvent, type ReactNode, useRef } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';

export type RouteTab = { path: string; label: string };

const STEPS: Record<string, (index: number, count: number) => number> = {
  ArrowRight: (index, count) => (index + 1) % count,
  ArrowLeft: (index, count) => (index - 1 + count) % count,
  Home: () => 0,
  End: (_index, count) => count - 1,
};

export function RouteTabs(props: {
  /** The tab list's accessible name. */
  label: string;
  /** The URL the tabs' paths are under. */
  base: string;
  tabs: readonly RouteTab[];
  /** Prefixes the tabs' and the panel's element ids. */
  idPrefix: string;
  children: ReactNode;
}) {
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const links = useRef<(HTMLAnchorElement | null)[]>([]);
  const urlOf = (tab: RouteTab) => `${props.base}/${tab.path}`;
  // A tab stays selected on the pages under it (a run opened from Runs).
  const active = props.tabs.findIndex((tab) => pathname === urlOf(tab) || pathname.startsWith(`${urlOf(tab)}/`));
  const onKeyDown = (event: KeyboardEvent) => {
    const step = STEPS[event.key];
    if (!step) return;
    event.preventDefault();
    const next = step(Math.max(active, 0), props.tabs.length);
    links.current[next]?.focus();
    void navigate(urlOf(props.tabs[next] as RouteTab));
  };
  const tabId = (tab: RouteTab) => `${props.idPrefix}-${tab.path}`;
  const panelId = `${props.idPrefix}-panel`;
  const activeTab = props.tabs[active];
  return (
    <>
      <div role="tablist" aria-label={props.label} className="tabs" onKeyDown={onKeyDown}>
        {props.tabs.map((tab, index) => (
          <Link
            key={tab.path}
            ref={(element) => {
              links.current[index] = element;
            }}
            to={urlOf(tab)}
            role="tab"
            id={tabId(tab)}
            aria-selected={index === active}
            aria-controls={panelId}
            tabIndex={index === active || (active < 0 && index === 0) ? 0 : -1}
          >
            {tab.label}
          </Link>
        ))}
      </div>
      <div
        role="tabpanel"
        id={panelId}
        aria-labelledby={activeTab ? tabId(activeTab) : undefined}
        className="tab-panel"
      >
        {props.children}
      </div>
    </>
  );
}
