// An engine whose supervisor is gone, its stdout a pipe nobody reads: once the pipe is full its log
// writes never complete, and neither does a stop that waits on them (process.exit flushes the log
// first). SIGTERM must still end it, once the grace period and the deadline after it have passed.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, it, jest } from '@jest/globals';
import { makeLlmEngineConfig } from './testing/engine-configs.js';
import { type EngineProcess, startEngineProcess } from './testing/engine-process.js';
import { writeConfigFile } from './testing/test-engine.js';

jest.setTimeout(120_000);

// Each request is logged with its URL: these fill any pipe's buffer many times over.
const PADDING = 'x'.repeat(8_000);
const REQUESTS = 300;

let configFile: string;
let engine: EngineProcess;

beforeAll(async () => {
  configFile = await writeConfigFile(makeLlmEngineConfig());
  engine = await startEngineProcess(
    { ENGINE_CONFIG_FILE: configFile, LOG_LEVEL: 'info', ENGINE_SHUTDOWN_GRACE_MS: '200' },
    { unreadStdout: true },
  );
});

afterAll(async () => {
  await engine?.kill('SIGKILL');
  await rm(path.dirname(configFile), { recursive: true, force: true });
});

describe('an engine whose stdout nobody reads', () => {
  it('exits after SIGTERM, whatever its pending log writes', async () => {
    for (let i = 0; i < REQUESTS; i++) {
      await (await fetch(`${engine.url}/health?padding=${PADDING}`)).arrayBuffer();
    }
    let exited = false;
    void engine.kill('SIGTERM').then(() => (exited = true));
    await waitUntil(() => exited, { what: 'the engine to exit after SIGTERM', timeoutMs: 30_000 });
  });
});
