// Shared by the manager's and the engine's property-based fuzz tests.
// What a hostile client does to a well-formed JSON value: one node at a time, a wrong type, a missing or
// extra field, a NUL, a lone surrogate or `__proto__` in a string or key, a huge string or array, or
// nesting far deeper than any schema.
import fc from 'fast-check';

const MUTATION_KINDS = [
  'wrong-type',
  'drop-field',
  'extra-field',
  'nul',
  'lone-surrogate',
  'nul-key',
  'surrogate-key',
  'proto-key',
  'huge-string',
  'huge-array',
  'deep',
  'very-deep',
] as const;

export type Mutation = { kind: (typeof MUTATION_KINDS)[number]; at: number };

// Characters that cannot be stored get more turns: only they reach the database unrefused.
const TEXT_KINDS = ['nul', 'lone-surrogate'] as const;

export const mutationArbitrary: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...TEXT_KINDS) },
    { weight: 3, arbitrary: fc.constantFrom(...MUTATION_KINDS) },
  ),
  at: fc.nat(),
});

// Nesting 10,000 deep overflows JSON.stringify here as it would the server's code: such a node is a
// marker in the value, and becomes the nested text only when the body is written (toJsonText).
const VERY_DEEP_MARKER = '@@very-deep@@';
const VERY_DEEP_LEVELS = 10_000;

const WRONG_TYPES: unknown[] = [0, -1.5, true, null, '', 'text', [], {}, [null], { a: 1 }];
const HUGE_STRING_LENGTH = 200_000;
const HUGE_ARRAY_LENGTH = 50_000;

type Slot = { get: () => unknown; set: (value: unknown) => void };

// A value an earlier mutation made huge or deep is not walked to its end: its first nodes are enough.
const SLOTS_MAX = 500;
const SLOT_DEPTH_MAX = 40;

/** The nodes of `root` (itself included) as slots that can be read and replaced. */
function slotsOf(holder: { root: unknown }): Slot[] {
  const slots: Slot[] = [];
  const visit = (get: () => unknown, set: (value: unknown) => void, depth: number) => {
    if (slots.length >= SLOTS_MAX) return;
    slots.push({ get, set });
    const node = get();
    if (node === null || typeof node !== 'object' || depth >= SLOT_DEPTH_MAX) return;
    for (const key of Object.keys(node)) {
      const container = node as Record<string, unknown>;
      visit(
        () => container[key],
        (value) => defineOwn(container, key, value),
        depth + 1,
      );
    }
  };
  visit(
    () => holder.root,
    (value) => {
      holder.root = value;
    },
    0,
  );
  return slots;
}

/** Sets an own property even for `__proto__`, as JSON.parse would create it. */
function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level++) value = { n: value };
  return value;
}

function addKey(node: unknown, key: string): unknown {
  const target = node !== null && typeof node === 'object' && !Array.isArray(node) ? node : {};
  defineOwn(target as Record<string, unknown>, key, 'x');
  return target;
}

function insert(node: unknown, text: string): unknown {
  return typeof node === 'string' ? `${node.slice(0, 1)}${text}${node.slice(1)}` : `a${text}b`;
}

function mutateNode(node: unknown, { kind, at }: Mutation): unknown {
  switch (kind) {
    case 'wrong-type':
      return WRONG_TYPES[at % WRONG_TYPES.length];
    case 'drop-field': {
      if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
      const keys = Object.keys(node);
      if (keys.length > 0) delete (node as Record<string, unknown>)[keys[at % keys.length] as string];
      return node;
    }
    case 'extra-field':
      return addKey(node, 'unexpected_field');
    case 'nul':
      return insert(node, '\u0000');
    case 'lone-surrogate':
      return insert(node, at % 2 === 0 ? '\ud800' : '\udfff');
    case 'nul-key':
      return addKey(node, 'k\u0000');
    case 'surrogate-key':
      return addKey(node, '\udc00');
    case 'proto-key':
      return addKey(node, '__proto__');
    case 'huge-string':
      return 'x'.repeat(HUGE_STRING_LENGTH);
    case 'huge-array':
      return Array.from({ length: HUGE_ARRAY_LENGTH }, () => 1);
    case 'deep':
      return nested(40);
    case 'very-deep':
      return VERY_DEEP_MARKER;
  }
}

const isObject = (node: unknown) => node !== null && typeof node === 'object' && !Array.isArray(node);

/** Where a mutation bites: text changes aim at strings, key changes at objects, when the value has some. */
const TARGETS: Partial<Record<Mutation['kind'], (node: unknown) => boolean>> = {
  nul: (node) => typeof node === 'string',
  'lone-surrogate': (node) => typeof node === 'string',
  'drop-field': isObject,
  'extra-field': isObject,
  'nul-key': isObject,
  'surrogate-key': isObject,
  'proto-key': isObject,
};

/** `value` with each mutation applied to the node it picks (by `at`, among the nodes it aims at). */
export function applyMutations(value: unknown, mutations: readonly Mutation[]): unknown {
  const holder = { root: structuredClone(value) };
  for (const mutation of mutations) {
    const slots = slotsOf(holder);
    const target = TARGETS[mutation.kind];
    const aimed = target === undefined ? [] : slots.filter((slot) => target(slot.get()));
    const candidates = aimed.length > 0 ? aimed : slots;
    const slot = candidates[mutation.at % candidates.length] as Slot;
    slot.set(mutateNode(slot.get(), mutation));
  }
  return holder.root;
}

/** The JSON text of a mutated value, its very deep nodes written out. */
export function toJsonText(value: unknown): string {
  const deep = `${'{"n":'.repeat(VERY_DEEP_LEVELS)}1${'}'.repeat(VERY_DEEP_LEVELS)}`;
  return JSON.stringify(value).replaceAll(JSON.stringify(VERY_DEEP_MARKER), deep);
}
