// Checks of a parsed JSON value as a whole, which field schemas cannot make: how deeply it nests, and
// whether every key and string can be stored. PostgreSQL's text and jsonb hold neither a NUL character
// nor a lone UTF-16 surrogate, and a key `__proto__` does not survive being copied. Text that cannot be
// refused (what an engine's agent produced) is made storable instead: toStorableText.
import { RESERVED_OBJECT_KEYS } from './limits.js';

export type JsonProblem = { path: PropertyKey[]; message: string };

const NUL = '\u0000';
// With the u flag a paired surrogate is one code point, so only a lone half matches.
const LONE_SURROGATE = /\p{Cs}/u;

/** Why PostgreSQL cannot store `text`, or undefined when it can. */
export function describeUnstorableText(text: string): string | undefined {
  if (text.includes(NUL)) return 'Must not contain a NUL character (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'Must not contain a lone UTF-16 surrogate';
  return undefined;
}

const LONE_SURROGATES = /\p{Cs}/gu;
const REPLACEMENT = '\uFFFD';

/** `text` with each NUL and lone surrogate replaced by U+FFFD, the replacement character: text PostgreSQL stores. */
export function toStorableText(text: string): string {
  return text.replaceAll(NUL, REPLACEMENT).replace(LONE_SURROGATES, REPLACEMENT);
}

function describeRefusedKey(key: string): string | undefined {
  if (RESERVED_OBJECT_KEYS.has(key)) return `"${key}" is not accepted as a key`;
  return describeUnstorableText(key);
}

type Options = { maxDepth: number };

/**
 * The first problem found in `value`, depth first: an object or array nested deeper than `maxDepth`
 * (the top-level one is depth 1), or a key or string that cannot be stored. Descends no deeper than
 * `maxDepth`, so a hostile value cannot exhaust the stack.
 */
export function findJsonProblem(value: unknown, { maxDepth }: Options): JsonProblem | undefined {
  const path: PropertyKey[] = [];
  const visit = (node: unknown, depth: number): string | undefined => {
    if (typeof node === 'string') return describeUnstorableText(node);
    if (node === null || typeof node !== 'object') return undefined;
    if (depth > maxDepth) return `Must not nest objects and arrays more than ${maxDepth} deep`;
    const entries: [PropertyKey, unknown][] = Array.isArray(node)
      ? node.map((item, index) => [index, item])
      : Object.entries(node);
    for (const [key, child] of entries) {
      path.push(key);
      const problem = (typeof key === 'string' ? describeRefusedKey(key) : undefined) ?? visit(child, depth + 1);
      if (problem !== undefined) return problem;
      path.pop();
    }
    return undefined;
  };
  const message = visit(value, 1);
  return message === undefined ? undefined : { path, message };
}
