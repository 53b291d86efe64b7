import type { Router } from 'express';
import type { ServedAgent } from '../hosting/served-agent.js';

/** What a boot mode (database-mode.ts, file-mode.ts) gives the engine's app and its shutdown. */
export type EngineBoot = {
  openAgent: (agentId: string) => Promise<ServedAgent | undefined>;
  root: Router;
  /** The agents loaded now. */
  loaded: () => ServedAgent[];
  /** Lets runs finish for up to `graceMs`, then stops the rest, and unloads every agent. */
  drain: (graceMs: number) => Promise<void>;
  /** Closes what the mode opened (the database), after the drain. */
  close: () => Promise<void>;
};
