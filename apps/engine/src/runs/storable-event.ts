// What an agent produces (its model's text, its tools' results, its own code's values) cannot be
// refused as a client's input is, and PostgreSQL's text and jsonb hold neither a NUL nor a lone UTF-16
// surrogate: a run storing them would lose its thread, or its record. Every run's events are made
// storable where the engine takes them from the agent (event-order-guard.ts), each such character
// becoming U+FFFD, so the client's stream, the run's event log, its record and its thread all hold the
// same text.
import type { BaseEvent } from '@ag-ui/core';
import { toStorableText } from '@agentplane/contracts';

// Walked as JSON.stringify sees it: own enumerable keys, except where toJSON says otherwise (a Date).
const isWalked = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON !== 'function';

// A value is copied only where something changed: the agent's own objects are never written to.
function toStorableValue(value: unknown): unknown {
  if (typeof value === 'string') return toStorableText(value);
  if (!isWalked(value)) return value;
  if (Array.isArray(value)) {
    const items = value.map(toStorableValue);
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  let changed = false;
  const entries = Object.entries(value).map(([key, child]) => {
    const entry = [toStorableText(key), toStorableValue(child)] as const;
    changed ||= entry[0] !== key || entry[1] !== child;
    return entry;
  });
  return changed ? Object.fromEntries(entries) : value;
}

/** The event with every NUL and lone surrogate in its keys and strings replaced by U+FFFD. */
export function toStorableEvent(event: BaseEvent): BaseEvent {
  return toStorableValue(event) as BaseEvent;
}
