import type { ReactNode } from 'react';

/** What an empty list shows instead of a bare header: that there is nothing yet, and what to do next. */
export function EmptyState(props: { title: string; children?: ReactNode }) {
  return (
    <div className="empty-state">
      <p className="empty-title">{props.title}</p>
      {props.children}
    </div>
  );
}
