// Benchmark 5: what the event log costs a live client. The same mock-model agent behind two engine
// processes in database mode, with the same credentials, token and database, differing only in
// ENGINE_RUN_EVENT_LOG: both store every run's row and thread, one its events too ("logging on"), one
// not ("logging off"). Measured in interleaved rounds (engine-comparison.ts).
import type { TEngineCredentials } from '@agentplane/contracts';
import { type ContenderFigures, compareEngines, soleAgentRuns } from './engine-comparison.js';
import { startEngine } from './engine-process.js';
import type { Service } from './service-process.js';

export type RunEventLogResult = {
  on: ContenderFigures;
  off: ContenderFigures;
  rounds: number;
  /** Runs the logging engine stored with their events: benchmark 6 rejoins them. */
  storedRunIds: string[];
};

export async function benchRunEventLog(options: {
  /** The database-mode engine with its event log on, serving the agent of `credentials`. */
  engine: Service;
  credentials: TEngineCredentials;
  managerIssuer: string;
  headers: Record<string, string>;
  durationSeconds: number;
  rounds: number;
}): Promise<RunEventLogResult> {
  const unlogged = await startEngine({
    credentials: options.credentials,
    managerIssuer: options.managerIssuer,
    env: { ENGINE_RUN_EVENT_LOG: 'off' },
  });
  const storedRunIds: string[] = [];
  try {
    const figures = await compareEngines(
      {
        on: {
          url: options.engine.url,
          runs: soleAgentRuns(options.headers),
          onRun: (runId) => storedRunIds.push(runId),
        },
        off: { url: unlogged.url, runs: soleAgentRuns(options.headers) },
      },
      { rounds: options.rounds, seconds: Math.max(1, Math.round(options.durationSeconds / options.rounds)) },
    );
    return { ...figures, rounds: options.rounds, storedRunIds };
  } finally {
    await unlogged.stop();
  }
}
