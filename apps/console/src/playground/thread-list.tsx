// The caller's threads on the agent's engine, newest first, a page at a time through the engine's
// cursor (X-Next-Cursor) and searched by title, so that 500 threads are one short list and a search box.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useDeferredValue, useId, useState } from 'react';
import { EmptyState } from '../ui/empty-state';
import { Pager } from '../ui/pager';
import { getPageFromEngine } from './engine-token';

export type ThreadItem = { thread_id: string; title: string | null; updated_at: string; message_count: number };

const THREADS_PER_PAGE = 20;

/** The cache key of an agent's thread lists: a run invalidates them all. */
export const threadListKey = (engineUrl: string, agentId: string) => ['engine-threads', engineUrl, agentId] as const;

export function ThreadList(props: {
  engineUrl: string;
  agentId: string;
  token: () => Promise<string>;
  currentId: string;
  onOpen: (threadId: string) => void;
  onNew: () => void;
}) {
  const id = useId();
  const [text, setText] = useState('');
  const search = useDeferredValue(text.trim());
  // The cursors of the pages after the first, up to the one shown; a new search starts at the first.
  const [trail, setTrail] = useState<{ search: string; cursors: string[] }>({ search: '', cursors: [] });
  const cursors = trail.search === search ? trail.cursors : [];
  const cursor = cursors.at(-1);
  const threads = useQuery({
    queryKey: [...threadListKey(props.engineUrl, props.agentId), search, cursor],
    queryFn: async () => {
      const query = new URLSearchParams({ limit: String(THREADS_PER_PAGE) });
      if (search) query.set('q', search);
      if (cursor) query.set('cursor', cursor);
      return getPageFromEngine<ThreadItem>(props.engineUrl, `/agent/threads?${query}`, await props.token());
    },
    placeholderData: keepPreviousData,
    retry: false,
  });
  const page = threads.data;
  const turnPage = (offset: number) => {
    const forward = offset > cursors.length * THREADS_PER_PAGE;
    if (forward && !page?.next) return;
    setTrail({ search, cursors: forward ? [...cursors, page?.next as string] : cursors.slice(0, -1) });
  };
  return (
    <nav aria-label="Threads" className="threads">
      <button type="button" onClick={props.onNew}>
        New thread
      </button>
      <search className="thread-search">
        <label htmlFor={`${id}-search`}>Search threads</label>
        <input id={`${id}-search`} type="search" value={text} onChange={(event) => setText(event.target.value)} />
      </search>
      {threads.error && <p className="note">Threads unavailable: {threads.error.message}</p>}
      {page?.total === 0 &&
        (search ? (
          <EmptyState title="No thread matches">
            <p>No thread's title (its first message) contains “{search}”.</p>
          </EmptyState>
        ) : (
          <EmptyState title="No threads yet">
            <p>Send the agent a message: each conversation is a thread, listed here to come back to.</p>
          </EmptyState>
        ))}
      {page && page.total > 0 && (
        <>
          <ul>
            {page.items.map((item) => (
              <li key={item.thread_id}>
                <button
                  type="button"
                  aria-current={item.thread_id === props.currentId}
                  onClick={() => props.onOpen(item.thread_id)}
                >
                  <span className="thread-title">{item.title ?? 'Untitled thread'}</span>
                  <span className="thread-meta">
                    {new Date(item.updated_at).toLocaleString()}, {item.message_count}{' '}
                    {item.message_count === 1 ? 'message' : 'messages'}
                  </span>
                </button>
              </li>
            ))}
          </ul>
          <Pager
            label="Thread pages"
            offset={cursors.length * THREADS_PER_PAGE}
            limit={THREADS_PER_PAGE}
            total={page.total}
            onChange={turnPage}
          />
        </>
      )}
    </nav>
  );
}
