// The replica's slots for queued runs (ENGINE_RUN_QUEUE_CONCURRENCY), shared by every agent it serves
// and handed out fairly: at most `perAgent` to one agent (ENGINE_POOL_AGENT_CONCURRENCY on a pool), and,
// when several agents wait, round-robin over them, so that one agent's backlog cannot keep another's
// runs waiting until it drains. An agent's run queue takes a slot before it claims a run, so a claimed
// run never waits, and gives it back when the run ends. A dedicated engine is the case of one agent.

export type RunSlot = {
  /** Gives the slot back; a second call does nothing. */
  release: () => void;
};

export type FairRunSlots = {
  /** A slot now, when one is free and the agent is under its cap; undefined otherwise. */
  tryTake: (agentId: string) => RunSlot | undefined;
  /** Waits in line for a slot; undefined when `signal` aborts first (the waiter leaves the line). */
  take: (agentId: string, signal: AbortSignal) => Promise<RunSlot | undefined>;
  /** Slots held, and takers waiting in line (the metrics). */
  counts: () => { held: number; waiting: number };
};

type Waiter = { grant: (slot: RunSlot) => void };

export function createFairRunSlots(options: { total: number; perAgent: number }): FairRunSlots {
  const { total, perAgent } = options;
  const held = new Map<string, number>();
  let heldTotal = 0;
  // The agents waiting, in the order they are served next (a Map keeps insertion order): an agent that
  // is given a slot and still waits goes to the back.
  const lines = new Map<string, Waiter[]>();

  const mayTake = (agentId: string) => heldTotal < total && (held.get(agentId) ?? 0) < perAgent;

  const grant = (agentId: string): RunSlot => {
    held.set(agentId, (held.get(agentId) ?? 0) + 1);
    heldTotal++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const left = (held.get(agentId) ?? 1) - 1;
        if (left === 0) held.delete(agentId);
        else held.set(agentId, left);
        heldTotal--;
        handOut();
      },
    };
  };

  // Called whenever a slot frees: the first agent in line under its cap gets it. Agents at their cap
  // keep their place.
  function handOut(): void {
    while (heldTotal < total) {
      const next = [...lines.keys()].find(mayTake);
      if (next === undefined) return;
      const line = lines.get(next) ?? [];
      const waiter = line.shift();
      lines.delete(next);
      if (line.length > 0) lines.set(next, line);
      waiter?.grant(grant(next));
    }
  }

  const leave = (agentId: string, waiter: Waiter) => {
    const line = lines.get(agentId);
    if (line === undefined) return;
    const at = line.indexOf(waiter);
    if (at >= 0) line.splice(at, 1);
    if (line.length === 0) lines.delete(agentId);
  };

  return {
    tryTake: (agentId) => (mayTake(agentId) ? grant(agentId) : undefined),
    take: (agentId, signal) =>
      new Promise((resolve) => {
        if (signal.aborted) return resolve(undefined);
        // A free slot with nobody eligible waiting for it: no one is passed over by taking it now.
        if (mayTake(agentId)) return resolve(grant(agentId));
        const onAbort = () => {
          leave(agentId, waiter);
          resolve(undefined);
        };
        const waiter: Waiter = {
          grant: (slot) => {
            signal.removeEventListener('abort', onAbort);
            resolve(slot);
          },
        };
        signal.addEventListener('abort', onAbort, { once: true });
        const line = lines.get(agentId);
        if (line === undefined) lines.set(agentId, [waiter]);
        else line.push(waiter);
      }),
    counts: () => ({ held: heldTotal, waiting: [...lines.values()].reduce((sum, line) => sum + line.length, 0) }),
  };
}
