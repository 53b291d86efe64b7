// The comparison's items, a row each: its verdict, whether the reply changed, and each scorer's delta
// (candidate − base); a row's button opens the two replies' diff beneath it.
import { Fragment, useState } from 'react';
import type { ComparisonItem } from './experiment-api';
import { ReplyDiff } from './reply-diff';

const formatDelta = (delta: number | null) => (delta === null ? '—' : `${delta > 0 ? '+' : ''}${delta.toFixed(2)}`);

export function ComparisonTable(props: {
  items: ComparisonItem[];
  scorers: string[];
  /** Each item's last user message, by id. */
  questions: ReadonlyMap<string, string>;
  base: number;
  candidate: number;
}) {
  const [open, setOpen] = useState<string>();
  const columns = 4 + props.scorers.length;
  return (
    <table>
      <caption>
        Items, v{props.candidate} against v{props.base}
      </caption>
      <thead>
        <tr>
          <th scope="col">Item</th>
          <th scope="col">Input</th>
          <th scope="col">Verdict</th>
          <th scope="col">Reply</th>
          {props.scorers.map((scorer) => (
            <th scope="col" key={scorer}>
              Δ {scorer}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.items.map((item) => {
          const expanded = open === item.item_id;
          const label = `item ${item.position + 1}`;
          return (
            <Fragment key={item.item_id}>
              <tr>
                <th scope="row">
                  <button
                    type="button"
                    aria-expanded={expanded}
                    aria-controls={`diff-${item.item_id}`}
                    onClick={() => setOpen(expanded ? undefined : item.item_id)}
                  >
                    {expanded ? 'Hide' : 'Show'} the replies of {label}
                  </button>
                </th>
                <td>{props.questions.get(item.item_id) ?? ''}</td>
                <td>{item.verdict}</td>
                <td>{item.reply_changed ? 'changed' : 'same'}</td>
                {props.scorers.map((scorer) => (
                  <td key={scorer}>{formatDelta(item.scores.find((each) => each.name === scorer)?.delta ?? null)}</td>
                ))}
              </tr>
              {expanded && (
                <tr id={`diff-${item.item_id}`}>
                  <td colSpan={columns}>
                    <ReplyDiff item={item} base={props.base} candidate={props.candidate} />
                  </td>
                </tr>
              )}
            </Fragment>
          );
        })}
      </tbody>
    </table>
  );
}
