// The AG-UI state a run leaves its thread with: its last STATE_SNAPSHOT, with the STATE_DELTA JSON
// patches sent after it applied (with fast-json-patch, the library @ag-ui/client applies them with).
// A delta before any snapshot patches the state the client sent. A run that sends neither leaves the
// thread's state as it was (undefined here).
import { type BaseEvent, EventType } from '@ag-ui/core';
import jsonPatch, { type Operation } from 'fast-json-patch';

export type StateTracker = {
  observe: (event: BaseEvent) => void;
  /** The state after the events so far; undefined when no state event came. */
  state: () => unknown;
};

export function createStateTracker(initial: unknown): StateTracker {
  let state: unknown;
  let changed = false;
  return {
    observe: (event) => {
      if (event.type === EventType.STATE_SNAPSHOT) {
        state = (event as BaseEvent & { snapshot: unknown }).snapshot;
        changed = true;
      } else if (event.type === EventType.STATE_DELTA) {
        const base = changed ? state : initial;
        const delta = (event as BaseEvent & { delta: Operation[] }).delta;
        try {
          // Applied to a copy: the snapshot object is also the event that was sent, or the client's input.
          state = jsonPatch.applyPatch(jsonPatch.deepClone(base ?? {}), delta, false, true).newDocument;
          changed = true;
        } catch {
          // A patch that does not apply fails in the client too; the thread keeps the last good state.
        }
      }
    },
    state: () => (changed ? state : undefined),
  };
}
