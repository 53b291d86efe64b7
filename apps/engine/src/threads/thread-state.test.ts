import { type BaseEvent, EventType } from '@ag-ui/core';
import { describe, expect, it } from '@jest/globals';
import { createStateTracker } from './thread-state.js';

const snapshot = (value: unknown) => ({ type: EventType.STATE_SNAPSHOT, snapshot: value }) as BaseEvent;
const delta = (operations: unknown[]) => ({ type: EventType.STATE_DELTA, delta: operations }) as BaseEvent;

describe('createStateTracker', () => {
  it('keeps the last snapshot with the deltas after it applied, leaving the events untouched', () => {
    const tracker = createStateTracker({ ignored: true });
    const first = { count: 1, tags: ['a'] };
    tracker.observe(snapshot({ stale: true }));
    tracker.observe(snapshot(first));
    tracker.observe(delta([{ op: 'replace', path: '/count', value: 2 }]));
    tracker.observe(delta([{ op: 'add', path: '/tags/-', value: 'b' }]));
    expect(tracker.state()).toEqual({ count: 2, tags: ['a', 'b'] });
    expect(first).toEqual({ count: 1, tags: ['a'] });
  });

  it('patches the state the client sent when a delta comes before any snapshot', () => {
    const input = { step: 'draft' };
    const tracker = createStateTracker(input);
    tracker.observe(delta([{ op: 'replace', path: '/step', value: 'sent' }]));
    expect(tracker.state()).toEqual({ step: 'sent' });
    expect(input).toEqual({ step: 'draft' });
  });

  it('keeps the last good state when a patch does not apply, and reports nothing without state events', () => {
    const tracker = createStateTracker(undefined);
    expect(tracker.state()).toBeUndefined();
    tracker.observe({ type: EventType.TEXT_MESSAGE_END, messageId: 'm' } as BaseEvent);
    expect(tracker.state()).toBeUndefined();
    tracker.observe(snapshot({ count: 1 }));
    tracker.observe(delta([{ op: 'remove', path: '/missing/deep' }]));
    expect(tracker.state()).toEqual({ count: 1 });
  });
});
