// Benchmarks 5 and 6, on one mock-model agent: the event log's cost (run-event-log.ts), then rejoining
// its stored runs and holding 1,000 rejoined streams open (rejoined-streams.ts), each on its own engine
// process so that one's memory peak is not the other's.
import { ManagerClient } from '@agentplane/manager-client';
import { createRunnableAgent, startEngine } from './engine-process.js';
import { benchRejoinedStreams, benchRejoinLatency, type RejoinedStreamsResult } from './rejoined-streams.js';
import { benchRunEventLog, type RunEventLogResult } from './run-event-log.js';
import { startStalledModel } from './stalled-model.js';

export type RunRecordsResult = {
  eventLog: RunEventLogResult;
  rejoin: { rejoins: number; p50Ms: number; p99Ms: number };
  streams: RejoinedStreamsResult;
};

const REJOINS = 500;

export async function benchRunRecords(options: {
  managerUrl: string;
  /** The bench database, as its owner: to count the transactions of the rejoined streams' engine. */
  databaseUrl: string;
  durationSeconds: number;
  streams: number;
}): Promise<RunRecordsResult> {
  const client = await ManagerClient.signUp(options.managerUrl);
  const mock = { name: 'run records bench', framework: 'LLM', agent: { model: { provider: 'mock', name: 'echo' } } };
  const { id: agentId, headers, credentials } = await createRunnableAgent(client, mock);
  const engine = await startEngine({ credentials, managerIssuer: options.managerUrl });
  let eventLog: RunEventLogResult;
  let rejoin: RunRecordsResult['rejoin'];
  try {
    eventLog = await benchRunEventLog({
      engine,
      credentials,
      managerIssuer: options.managerUrl,
      headers,
      durationSeconds: options.durationSeconds,
      rounds: 5,
    });
    rejoin = await benchRejoinLatency({
      engineUrl: engine.url,
      headers,
      runIds: eventLog.storedRunIds.slice(0, REJOINS),
    });
  } finally {
    await engine.stop();
  }

  // A model that never answers keeps the followed runs going; a new engine reads that config at start.
  const stalled = await startStalledModel();
  await client.expect(200, 'PATCH', `/agents/${agentId}`, {
    ...mock,
    agent: { model: { provider: 'openai', name: 'stalled', baseUrl: stalled.baseUrl } },
  });
  const following = await startEngine({ credentials, managerIssuer: options.managerUrl });
  try {
    const streams = await benchRejoinedStreams({
      engine: following,
      databaseUrl: options.databaseUrl,
      headers,
      runs: 10,
      streams: options.streams,
      holdMs: 5000,
    });
    return { eventLog, rejoin, streams };
  } finally {
    await following.stop();
    await stalled.close();
  }
}
