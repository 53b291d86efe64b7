// A list the API pages with limit and offset, shown a page at a time: one small request and one small
// table whatever the total, and the previous page stays on screen while the next one loads. An empty
// list shows what to do next (`empty`), not a header over nothing.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { problemOf } from '../api/api-problem';
import { Pager } from './pager';
import { ProblemAlert } from './problem-alert';

export const PAGE_SIZE = 50;

export type Column<T> = { header: string; cell: (row: T) => ReactNode };

export function PagedTable<T extends { id: string }>(props: {
  caption: string;
  queryKey: readonly unknown[];
  fetchPage: (offset: number, limit: number) => Promise<{ items: T[]; total: number }>;
  columns: Column<T>[];
  empty: ReactNode;
  /** Reads the page again this often, for a list that changes on its own (a delivery log). */
  refetchIntervalMs?: number;
}) {
  const [offset, setOffset] = useState(0);
  const query = useQuery({
    queryKey: [...props.queryKey, offset],
    queryFn: () => props.fetchPage(offset, PAGE_SIZE),
    placeholderData: keepPreviousData,
    refetchInterval: props.refetchIntervalMs ?? false,
  });
  if (query.error) return <ProblemAlert problem={problemOf(query.error)} />;
  if (!query.data) return <p aria-busy="true">Loading…</p>;
  if (query.data.total === 0) return props.empty;
  return (
    <>
      <table>
        <caption className="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th key={column.header} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {query.data.items.map((row) => (
            <tr key={row.id}>
              {props.columns.map((column) => (
                <td key={column.header}>{column.cell(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <Pager offset={offset} limit={PAGE_SIZE} total={query.data.total} onChange={setOffset} />
    </>
  );
}
