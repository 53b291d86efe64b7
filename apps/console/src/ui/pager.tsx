/**
 * Previous/next over a list the API pages with limit and offset; the total comes from X-Total-Count.
 * Shown over a list with something in it: an empty one says so itself (EmptyState).
 */
export function Pager(props: {
  offset: number;
  limit: number;
  total: number;
  onChange: (offset: number) => void;
  label?: string;
}) {
  const { offset, limit, total } = props;
  const last = Math.min(offset + limit, total);
  return (
    <nav className="pager" aria-label={props.label ?? 'Pages'}>
      <button type="button" disabled={offset === 0} onClick={() => props.onChange(Math.max(0, offset - limit))}>
        Previous page
      </button>
      <span aria-live="polite">{`${offset + 1}–${last} of ${total}`}</span>
      <button type="button" disabled={last >= total} onClick={() => props.onChange(offset + limit)}>
        Next page
      </button>
    </nav>
  );
}
