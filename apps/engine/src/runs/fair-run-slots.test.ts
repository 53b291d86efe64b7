// The replica's run slots on their own: the total and each agent's cap hold, slots go round-robin over
// the agents in line, and a waiter that leaves (its agent unloaded, its queue stopped) keeps no slot.
import { describe, expect, it } from '@jest/globals';
import { createFairRunSlots, type RunSlot } from './fair-run-slots.js';

const never = () => new AbortController().signal;

/** Takes slots in line for each agent named, in order, and records the order they are granted in. */
function line(slots: ReturnType<typeof createFairRunSlots>, agents: string[]) {
  const granted: { agent: string; slot: RunSlot }[] = [];
  for (const agent of agents) {
    void slots.take(agent, never()).then((slot) => {
      if (slot !== undefined) granted.push({ agent, slot });
    });
  }
  return granted;
}

// Grants resolve promises: their callbacks run once the microtasks queued so far have run.
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('fair run slots', () => {
  it('hands out at most the total, and no more than the cap to one agent', () => {
    const slots = createFairRunSlots({ total: 3, perAgent: 2 });
    expect(slots.tryTake('a')).toBeDefined();
    expect(slots.tryTake('a')).toBeDefined();
    expect(slots.tryTake('a')).toBeUndefined();
    expect(slots.tryTake('b')).toBeDefined();
    expect(slots.tryTake('c')).toBeUndefined();
    expect(slots.counts()).toEqual({ held: 3, waiting: 0 });
  });

  it("caps an agent at the total when its cap is larger (a dedicated engine's one agent)", () => {
    const slots = createFairRunSlots({ total: 2, perAgent: 16 });
    expect(slots.tryTake('a')).toBeDefined();
    expect(slots.tryTake('a')).toBeDefined();
    expect(slots.tryTake('a')).toBeUndefined();
  });

  it('serves the agents in line round-robin, whatever the length of their backlogs', async () => {
    const slots = createFairRunSlots({ total: 1, perAgent: 1 });
    const first = slots.tryTake('a');
    const granted = line(slots, ['a', 'a', 'a', 'b', 'a', 'c', 'b']);
    expect(slots.counts()).toEqual({ held: 1, waiting: 7 });
    let held = first;
    for (let i = 0; i < 7; i++) {
      held?.release();
      await settle();
      held = granted.at(-1)?.slot;
    }
    expect(granted.map((grant) => grant.agent)).toEqual(['a', 'b', 'c', 'a', 'b', 'a', 'a']);
    held?.release();
    expect(slots.counts()).toEqual({ held: 0, waiting: 0 });
  });

  it('passes over an agent at its cap, which keeps its place in line', async () => {
    const slots = createFairRunSlots({ total: 3, perAgent: 2 });
    const a1 = slots.tryTake('a');
    const a2 = slots.tryTake('a');
    const b1 = slots.tryTake('b');
    const granted = line(slots, ['a', 'b']);
    // b's own slot frees: a is first in line but at its cap, so b gets it.
    b1?.release();
    await settle();
    expect(granted.map((grant) => grant.agent)).toEqual(['b']);
    // a's slot frees: a, still first in line, gets it back.
    a1?.release();
    await settle();
    expect(granted.map((grant) => grant.agent)).toEqual(['b', 'a']);
    a2?.release();
    expect(slots.counts()).toEqual({ held: 2, waiting: 0 });
  });

  it('does not let a tryTake pass an agent in line', () => {
    const slots = createFairRunSlots({ total: 1, perAgent: 1 });
    const held = slots.tryTake('a');
    line(slots, ['b']);
    held?.release();
    expect(slots.tryTake('c')).toBeUndefined();
    expect(slots.counts()).toEqual({ held: 1, waiting: 0 });
  });

  it('frees a slot once however many times it is released', async () => {
    const slots = createFairRunSlots({ total: 1, perAgent: 1 });
    const held = slots.tryTake('a');
    const granted = line(slots, ['b', 'c']);
    held?.release();
    held?.release();
    await settle();
    expect(granted.map((grant) => grant.agent)).toEqual(['b']);
    expect(slots.counts()).toEqual({ held: 1, waiting: 1 });
  });

  it('takes a waiter out of line when its signal aborts, so its slot goes to the next', async () => {
    const slots = createFairRunSlots({ total: 1, perAgent: 1 });
    const held = slots.tryTake('a');
    const unloading = new AbortController();
    const left = slots.take('b', unloading.signal);
    const granted = line(slots, ['c']);
    unloading.abort();
    expect(await left).toBeUndefined();
    expect(slots.counts()).toEqual({ held: 1, waiting: 1 });
    held?.release();
    await settle();
    expect(granted.map((grant) => grant.agent)).toEqual(['c']);
    granted[0]?.slot.release();
    expect(slots.counts()).toEqual({ held: 0, waiting: 0 });
    // b holds nothing: with its cap of one it can take a slot again.
    expect(slots.tryTake('b')).toBeDefined();
  });

  it('answers a take with an aborted signal at once, without a slot', async () => {
    const slots = createFairRunSlots({ total: 1, perAgent: 1 });
    const stopped = new AbortController();
    stopped.abort();
    expect(await slots.take('a', stopped.signal)).toBeUndefined();
    expect(slots.counts()).toEqual({ held: 0, waiting: 0 });
  });
});
