// Two replies compared word by word (a longest common subsequence over words and the spaces after
// them), for the comparison's per-item diff. Past a size the table would not fit in a tab's memory, the
// two texts show as one removal and one addition instead.
export type DiffPart = { kind: 'same' | 'removed' | 'added'; text: string };

/** The most cells of the LCS table (base words × candidate words) worth computing. */
const MAX_CELLS = 4_000_000;

const tokenize = (text: string) => text.match(/\s+|[^\s]+\s*/g) ?? [];

function push(parts: DiffPart[], kind: DiffPart['kind'], text: string) {
  const last = parts.at(-1);
  if (last?.kind === kind) last.text += text;
  else parts.push({ kind, text });
}

export function diffWords(base: string, candidate: string): DiffPart[] {
  const a = tokenize(base);
  const b = tokenize(candidate);
  if (a.length * b.length > MAX_CELLS) {
    return [
      ...(base ? [{ kind: 'removed' as const, text: base }] : []),
      ...(candidate ? [{ kind: 'added' as const, text: candidate }] : []),
    ];
  }
  // lengths[i][j]: the longest common subsequence of a[i..] and b[j..], in one flat array.
  const width = b.length + 1;
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] =
        a[i] === b[j]
          ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
    }
  }
  const parts: DiffPart[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      push(parts, 'same', a[i++] as string);
      j++;
    } else if ((lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0)) {
      push(parts, 'removed', a[i++] as string);
    } else {
      push(parts, 'added', b[j++] as string);
    }
  }
  while (i < a.length) push(parts, 'removed', a[i++] as string);
  while (j < b.length) push(parts, 'added', b[j++] as string);
  return parts;
}
