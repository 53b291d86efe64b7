// Two versions' replies to one item, word by word: what the candidate dropped struck through, what it
// added underlined (the <del> and <ins> elements, which assistive technology announces as such).
import type { ComparisonItem } from './experiment-api';
import { diffWords } from './word-diff';

export function ReplyDiff(props: { item: ComparisonItem; base: number; candidate: number }) {
  const { base, candidate } = props.item;
  if (base.reply === null || candidate.reply === null) {
    return (
      <dl className="figures" aria-label={`Replies to item ${props.item.position + 1}`}>
        <dt>v{props.base}</dt>
        <dd>{base.reply ?? `No reply (${base.failed} of ${base.runs} runs failed)`}</dd>
        <dt>v{props.candidate}</dt>
        <dd>{candidate.reply ?? `No reply (${candidate.failed} of ${candidate.runs} runs failed)`}</dd>
      </dl>
    );
  }
  return (
    <figure className="reply-diff">
      <figcaption>
        Reply of v{props.candidate} against v{props.base}
      </figcaption>
      <p>
        {diffWords(base.reply, candidate.reply).map((part, index) =>
          part.kind === 'same' ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one diff never reorder
            <span key={index}>{part.text}</span>
          ) : part.kind === 'removed' ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: as above
            <del key={index}>{part.text}</del>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: as above
            <ins key={index}>{part.text}</ins>
          ),
        )}
      </p>
    </figure>
  );
}
